// lsp/main.cpp: hone-server, the language server: LSP 3.17 over stdio (protocol/PROTOCOL.md).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <csignal>
#include <thread>
#include <unistd.h>

#include "lsp/lsp_server.h"
#include "support/child_groups.h"

int main(int argc, char** argv) {
  CLI::App app{"hone-server: the hone language server (LSP over stdio)"};
  app.set_version_flag("--version", std::string("hone-server ") + HONE_VERSION);
  hone::lsp::ServerOptions options;
  std::string python, device = "auto", arch, gpus;
  bool no_sandbox = false;
  int debounce_ms = static_cast<int>(options.change_debounce.count());
  std::size_t max_message_mb = hone::lsp::FdTransport::kDefaultMaxMessageBytes >> 20;
  app.add_option("--python", python, "Python interpreter with torch for the eval worker (default: the first that imports torch)");
  app.add_option("--device", device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  app.add_option("--arch", arch, "GPU architecture for nvcc, e.g. sm_90 (default: the local GPU's)");
  app.add_option("--gpus", gpus, "GPUs to spread checks over: all, a count (2) or indices (0,2); default: one");
  app.add_flag("--no-sandbox", no_sandbox, "run candidate builds and checks unconfined (an explicit choice)");
  app.add_option("--debounce-ms", debounce_ms, "delay between an edit and its rebuild for diagnostics")->check(CLI::NonNegativeNumber);
  app.add_option("--max-message-mb", max_message_mb, "largest message accepted; larger ones are refused and skipped")
      ->check(CLI::PositiveNumber);
  bool stdio = true;
  app.add_flag("--stdio", stdio, "use stdio (the only transport; accepted because LSP clients pass it)");
  CLI11_PARSE(app, argc, argv);

  if (!python.empty()) options.engine.python = python;
  options.engine.device = *hone::parse_device_kind(device);
  if (!arch.empty()) options.engine.arch = arch;
  options.engine.sandbox = !no_sandbox;
  if (!gpus.empty()) {
    auto selection = hone::GpuSelection::parse(gpus);
    if (!selection) {
      std::fprintf(stderr, "hone-server: --gpus '%s': give all, a count (2) or indices (0,2)\n", gpus.c_str());
      return 2;
    }
    options.engine.gpus = *selection;
    if (selection->mode == hone::GpuSelection::Mode::List) options.engine.gpu_index = selection->indices.front();
    // Enough job threads that every GPU can hold a check while an optimize run goes on.
    const int width = selection->mode == hone::GpuSelection::Mode::Count  ? selection->count
                      : selection->mode == hone::GpuSelection::Mode::List ? static_cast<int>(selection->indices.size())
                                                                           : 8;
    options.job_workers = std::max(options.job_workers, width + 2);
  }
  options.change_debounce = std::chrono::milliseconds(debounce_ms);
  options.cpu_workers = static_cast<int>(std::max(2u, std::thread::hardware_concurrency() / 2));

  // The protocol owns the real stdout; anything else printed by the process goes to stderr.
  std::signal(SIGPIPE, SIG_IGN);
  hone::kill_children_on_fatal_signals();  // an editor that kills the server takes its jobs with it
  int protocol_out = ::dup(STDOUT_FILENO);
  if (protocol_out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::perror("hone-server: cannot set up stdout");
    return 2;
  }
  hone::lsp::FdTransport transport(STDIN_FILENO, protocol_out, max_message_mb << 20);
  hone::lsp::HoneLspServer server(transport, options);
  return server.run();
}
