-- tests/lsp/nvim/check_lens.lua: Debian's Neovim (0.7, its built-in LSP client, no plugins)
-- drives the real hone-server: open a kernel with an error -> nvcc/g++ diagnostics at its line ->
-- fix it -> the lenses -> run the Check lens's command through workspace/executeCommand (as
-- vim.lsp.codelens.run does) -> the verdict lens. Run by run_nvim_test.sh under ctest.
local server = assert(os.getenv('HONE_SERVER'), 'HONE_SERVER')
local workspace = assert(os.getenv('HONE_WORKSPACE'), 'HONE_WORKSPACE')

local function say(msg) io.stdout:write('nvim-e2e: ' .. msg .. '\n') end
local function fail(msg)
  io.stderr:write('nvim-e2e: FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function run()
  vim.cmd('edit ' .. workspace .. '/relu.cpp')
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'hone',
    cmd = { server, '--stdio', '--debounce-ms', '50' },
    root_dir = workspace,
    init_options = { python = '/usr/bin/python3', device = 'cpu' },
  })
  if not client_id then return fail('hone-server did not start') end
  vim.lsp.buf_attach_client(bufnr, client_id)
  local client
  if not vim.wait(30000, function()
    client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 50) then return fail('the client did not initialize') end

  local provider = client.server_capabilities.executeCommandProvider
  local commands = type(provider) == 'table' and provider.commands or {}
  if not vim.tbl_contains(commands, 'hone.check') then
    return fail('hone.check is not an executeCommandProvider command: ' .. vim.inspect(commands))
  end

  -- open -> diagnostics: the compiler's error at its own line (0-based 5: `int broken = ;`).
  local error_line
  if not vim.wait(120000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.severity == vim.diagnostic.severity.ERROR then error_line = d.lnum return true end
    end
    return false
  end, 100) then return fail('no error diagnostic for the broken kernel') end
  if error_line ~= 5 then return fail('the error is at line ' .. error_line .. ', not 5') end
  say('diagnostics: error at line ' .. error_line)

  -- Fix it: the diagnostics go.
  vim.api.nvim_buf_set_lines(bufnr, 5, 6, false, {})
  if not vim.wait(120000, function() return #vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR }) == 0 end, 100) then
    return fail('the error stayed after the fix')
  end
  say('diagnostics cleared after the fix')

  -- The Check lens, run as vim.lsp.codelens.run runs a lens the client has no handler for.
  local check
  vim.lsp.codelens.refresh()
  if not vim.wait(30000, function()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.command.command == 'hone.check' then check = lens.command return true end
    end
    vim.lsp.codelens.refresh()
    return false
  end, 200) then return fail('no Check lens') end
  local response
  client.request('workspace/executeCommand', check, function(err, result) response = { err = err, result = result } end, bufnr)
  if not vim.wait(600000, function() return response ~= nil end, 200) then return fail('the check did not answer') end
  if response.err then return fail('the check failed: ' .. vim.inspect(response.err)) end
  local status = response.result.result.verdict.status
  if status ~= 'correct' then return fail('verdict ' .. tostring(status)) end
  say('check: ' .. response.result.result.summary)

  -- The verdict lens.
  local title
  if not vim.wait(30000, function()
    vim.lsp.codelens.refresh()
    vim.wait(300)
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.command and lens.command.command == 'hone.showReport' and lens.command.title:find('correct', 1, true) then
        title = lens.command.title
        return true
      end
    end
    return false
  end, 200) then return fail('no verdict lens after the check') end
  say('verdict lens: ' .. title)
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  say('PASS')
  vim.cmd('qall!')
end

local ok, err = pcall(run)
if not ok then fail(tostring(err)) end
