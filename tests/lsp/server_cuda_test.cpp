// tests/lsp/server_cuda_test.cpp: hone-server on ordinary CUDA files and projects (issue 16),
// through the real server, engine and nvcc: a .cu without hone's form gets nvcc's diagnostics at
// its own lines and its kernels' facts; an error in an included header is shown at the header's
// line with related information at the #include; a project's compile_commands.json gives the
// flags, and its headers outside the workspace are readable; every lens command runs through
// workspace/executeCommand (check, the task skeleton, the PTX view with its source mapping, PTX and
// SASS requests side by side); hints anchor at kernels' declared names (templates too); settings
// merge; the workspace comes from rootPath too and a missing root is not created; on the GPU, the
// SASS view of a profiled kernel carries the profile's per-instruction counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "lsp/documents.h"
#include "lsp_client.h"
#include "support/hash.h"

namespace hone::lsp::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class ServerCuda : public ::testing::Test {
 protected:
  void SetUp() override { start(server_options()); }
  // A fresh workspace folder for the test and the server's options over it.
  ServerOptions server_options() {
    dir_ = fs::temp_directory_path() / ("hone-lsp-cuda-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    open_up(dir_);
    ServerOptions options;
    options.engine.workspace = dir_;
    const char* python = std::getenv("HONE_PYTHON");
    options.engine.python = python && *python ? python : "/usr/bin/python3";
    options.engine.device = DeviceKind::Cpu;
    options.engine.arch = "sm_90";
    options.change_debounce = std::chrono::milliseconds(100);
    options.refresh_debounce = std::chrono::milliseconds(0);
    return options;
  }
  void start(const ServerOptions& options) { client_ = std::make_unique<LspClient>(options); }
  void TearDown() override {
    client_.reset();
    fs::remove_all(dir_);
  }
  static void open_up(const fs::path& p) {
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  }
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    for (fs::path d = p.parent_path(); d != dir_; d = d.parent_path()) open_up(d);
    std::ofstream(p) << text;
    return p;
  }
  std::string open(const std::string& name, const std::string& text) {
    write(name, text);
    std::string uri = uri_from_path(dir_ / name);
    client_->notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "cuda"}, {"version", 1}, {"text", text}}}});
    return uri;
  }
  // The last diagnostics published for `uri`.
  json last_diagnostics(const std::string& uri) {
    json last = json();
    for (const json& p : client_->take("textDocument/publishDiagnostics"))
      if (p["params"]["uri"] == uri) last = p["params"]["diagnostics"];
    return last;
  }
  json execute(const std::string& command, json arguments) {
    return client_->call("workspace/executeCommand", {{"command", command}, {"arguments", std::move(arguments)}});
  }

  fs::path dir_;
  std::unique_ptr<LspClient> client_;
};

const char* kPlainBroken =
    "// an ordinary CUDA file: no hone.h, no forward\n"
    "#include <cstdio>\n"
    "\n"
    "__global__ void scale(float* x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] = 2.0f * ;\n"
    "}\n";

const char* kPlainFine =
    "// an ordinary CUDA file: no hone.h, no forward\n"
    "__global__ void scale(const float4* __restrict__ x, float4* __restrict__ y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    float4 v = x[i];\n"
    "    y[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);\n"
    "  }\n"
    "}\n";

TEST_F(ServerCuda, InitializeListsEveryCommandButThoseTheClientRunsItself) {
  json init = client_->call("initialize", {{"capabilities", json::object()},
                                           {"initializationOptions", {{"clientCommands", {"hone.check", "hone.profile"}}}}});
  json commands = init["result"]["capabilities"]["executeCommandProvider"]["commands"];
  EXPECT_TRUE(std::find(commands.begin(), commands.end(), "hone.showPtx") != commands.end()) << commands.dump();
  EXPECT_TRUE(std::find(commands.begin(), commands.end(), "hone.createTask") != commands.end());
  EXPECT_TRUE(std::find(commands.begin(), commands.end(), "hone.check") == commands.end());
  EXPECT_TRUE(std::find(commands.begin(), commands.end(), "hone.profile") == commands.end());
  client_->notify("initialized", json::object());
  json unknown = execute("hone.nothing", json::array({"file:///x.cu"}));
  EXPECT_EQ(unknown["error"]["code"], -32602) << unknown.dump();
}

TEST_F(ServerCuda, APlainCudaFileGetsNvccDiagnosticsAtItsOwnLine) {
  client_->initialize();
  std::string uri = open("plain.cu", kPlainBroken);
  client_->sync();
  json diagnostics = last_diagnostics(uri);
  ASSERT_TRUE(diagnostics.is_array() && !diagnostics.empty()) << diagnostics.dump();
  bool at_line = false;
  for (const json& d : diagnostics) {
    EXPECT_EQ(d["message"].get<std::string>().find("cannot tell the kernel's form"), std::string::npos) << d.dump();
    if (d["severity"] == 1 && d["range"]["start"]["line"] == 5) at_line = true;
  }
  EXPECT_TRUE(at_line) << diagnostics.dump(2);
  // No form: the lens says what to add and offers the task skeleton.
  json lenses = client_->call("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}})["result"];
  ASSERT_FALSE(lenses.empty());
  EXPECT_EQ(lenses[0]["range"]["start"]["line"], 3);
  EXPECT_EQ(lenses[0]["command"]["command"], "hone.createTask");
  EXPECT_NE(lenses[0]["command"]["title"].get<std::string>().find("add forward()"), std::string::npos);
}

TEST_F(ServerCuda, APlainCudaFileGetsItsKernelFactsAndPtxWithTheSourceMapping) {
  client_->initialize({{"window", {{"showDocument", {{"support", true}}}}}});
  std::string uri = open("plain.cu", kPlainFine);
  client_->sync();
  json diagnostics = last_diagnostics(uri);
  for (const json& d : diagnostics) EXPECT_NE(d["severity"], 1) << d.dump();
  json hints = client_->call("textDocument/inlayHint", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 20}, {"character", 0}}}}}})["result"];
  ASSERT_EQ(hints.size(), 1u) << hints.dump();
  EXPECT_NE(hints[0]["label"].get<std::string>().find("regs"), std::string::npos) << hints.dump();
  json hover = client_->call("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 1}, {"character", 18}}}})["result"];
  const std::string md = hover["contents"]["value"];
  // From the SASS where the machine can disassemble (the H200's has cuobjdump), else from the PTX.
  EXPECT_TRUE(md.find("global loads (PTX): 128-bit") != std::string::npos ||
              md.find("global loads (SASS): 128-bit") != std::string::npos)
      << md;
  EXPECT_NE(md.find("tensor cores: no"), std::string::npos) << md;

  json ptx = execute("hone.showPtx", json::array({uri, {{"line", 4}}}));
  ASSERT_TRUE(ptx.contains("result")) << ptx.dump();
  const json& r = ptx["result"];
  EXPECT_EQ(r["kind"], "ptx");
  EXPECT_EQ(r["name"], "scale");
  bool load_mapped = false;
  for (const json& l : r["lines"])
    if (l["text"].get<std::string>().find("ld.global") != std::string::npos && l["line"] == 4 && l["inFile"] == true) load_mapped = true;
  EXPECT_TRUE(load_mapped) << r["text"].get<std::string>();
  ASSERT_TRUE(r.contains("path"));
  EXPECT_TRUE(fs::is_regular_file(r["path"].get<std::string>()));
  EXPECT_FALSE(client_->take("window/showDocument").empty());
}

TEST_F(ServerCuda, SassOfTheKernelUnderTheCursorMapsToItsSourceLines) {
  if (!fs::exists("/usr/local/cuda/bin/nvdisasm"))
    GTEST_SKIP() << "no /usr/local/cuda/bin/nvdisasm: the SASS view is checked on the GPU machine (scripts/gpu/lsp.sh)";
  client_->initialize();
  std::string uri = open("plain.cu", kPlainFine);
  client_->sync();
  json sass = execute("hone.showSass", json::array({uri, {{"line", 4}}}));
  ASSERT_TRUE(sass.contains("result")) << sass.dump();
  const json& r = sass["result"];
  EXPECT_EQ(r["kind"], "sass");
  EXPECT_EQ(r["name"], "scale");
  EXPECT_EQ(r["mapped"], true);
  bool load_mapped = false;
  for (const json& l : r["lines"])
    if (l["text"].get<std::string>().find("LDG") != std::string::npos && l["line"] == 4 && l["inFile"] == true) load_mapped = true;
  EXPECT_TRUE(load_mapped) << r["text"].get<std::string>();
}

// On the GPU: Profile (the lens's command) of tasks/relu.cu, then its SASS with the profile's
// per-instruction counters beside each line. Unconfined, so that CUPTI may count where counters
// are restricted to administrators (the sandbox runs the candidate as another user).
class ServerCudaProfile : public ServerCuda {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/local/cuda/bin/nvdisasm"))
      GTEST_SKIP() << "no /usr/local/cuda/bin/nvdisasm: the SASS counters are checked on the GPU machine (scripts/gpu/lsp.sh)";
    if (!fs::exists("/dev/nvidiactl") && !fs::exists("/dev/nvidia0"))
      GTEST_SKIP() << "no NVIDIA GPU here (/dev/nvidiactl): scripts/gpu/lsp.sh runs this on the H200";
    ServerOptions options = server_options();
    options.engine.device = DeviceKind::Cuda;
    options.engine.arch = std::nullopt;  // the GPU's own
    options.engine.sandbox = false;
    start(options);
  }
};

TEST_F(ServerCudaProfile, SassOfAProfiledKernelCarriesItsCountersBesideItsLines) {
  const std::string kInst = "smsp__sass_inst_executed", kThread = "smsp__sass_thread_inst_executed";
  client_->initialize();
  write("relu.py", read_file(fs::path(HONE_TASKS_DIR) / "relu.py"));
  const std::string text = read_file(fs::path(HONE_TASKS_DIR) / "relu.cu");
  std::string uri = open("relu.cu", text);
  client_->sync();
  json before = execute("hone.showSass", json::array({uri, {{"function", "relu_kernel"}}}));
  ASSERT_TRUE(before.contains("result")) << before.dump().substr(0, 2000);
  EXPECT_EQ(before["result"]["counters"]["note"], "no profile of this build yet: run Profile to see per-line counters");

  json profiled = execute("hone.profile", json::array({uri, {{"baselines", false}}}));
  ASSERT_TRUE(profiled.contains("result")) << profiled.dump().substr(0, 3000);
  const json& verdict = profiled["result"]["result"]["verdict"];
  ASSERT_TRUE(verdict.contains("profile") && verdict["profile"].is_object()) << profiled.dump().substr(0, 3000);
  const json& sass = verdict["profile"]["sass"];
  ASSERT_EQ(sass["available"], true) << sass.dump().substr(0, 2000);

  json after = execute("hone.showSass", json::array({uri, {{"function", "relu_kernel"}}}));
  ASSERT_TRUE(after.contains("result")) << after.dump().substr(0, 2000);
  const json& r = after["result"];
  const json& counters = r["counters"];
  EXPECT_NE(counters["note"].get<std::string>().find("counters of the last profile of this build"), std::string::npos) << counters.dump();
  const json metrics = counters["metrics"];
  ASSERT_TRUE(std::find(metrics.begin(), metrics.end(), kInst) != metrics.end()) << metrics.dump() << " of " << sass.dump().substr(0, 1500);
  ASSERT_TRUE(std::find(metrics.begin(), metrics.end(), kThread) != metrics.end()) << metrics.dump();
  int loads = 0, stores = 0, counted = 0;
  for (const json& l : r["lines"]) {
    if (!l.contains("counters")) continue;
    ++counted;
    const std::string line = l["text"];
    const auto inst = l["counters"].value(kInst, std::uint64_t{0}), thread = l["counters"].value(kThread, std::uint64_t{0});
    EXPECT_GE(thread, inst) << "every executed warp instruction has an active thread: " << line;
    EXPECT_LE(thread, 32 * inst) << "a warp has 32 threads: " << line;
    if (l["counters"].contains("smsp__sass_sectors_mem_global") && l["counters"].contains("smsp__sass_sectors_mem_global_ideal")) {
      EXPECT_GE(l["counters"]["smsp__sass_sectors_mem_global"].get<std::uint64_t>(),
                l["counters"]["smsp__sass_sectors_mem_global_ideal"].get<std::uint64_t>()) << line;
    }
    if (inst > 0 && line.find("LDG") != std::string::npos) ++loads;
    if (inst > 0 && line.find("STG") != std::string::npos) ++stores;
  }
  EXPECT_GT(counted, 10) << r["text"].get<std::string>().substr(0, 3000);
  EXPECT_GE(loads, 1) << "the global loads of x executed";
  EXPECT_GE(stores, 1) << "the global stores of out executed";
  // The source lines of the loads sum their instructions: `float4 v = x4[j];` (the 16-byte path).
  const int vector_load = [&] {
    int n = 0;
    for (std::size_t at = 0, next; at < text.size(); at = next + 1, ++n) {
      next = text.find('\n', at);
      if (text.substr(at, next - at).find("float4 v = x4[j];") != std::string::npos) return n;
    }
    return -1;
  }();
  bool summed = false;
  for (const json& s : counters["sourceLines"])
    summed = summed || (s["inFile"] == true && s["line"] == vector_load && s["counters"].value(kInst, std::uint64_t{0}) > 0);
  EXPECT_TRUE(summed) << "line " << vector_load << " in " << counters["sourceLines"].dump().substr(0, 2000);
  ASSERT_TRUE(r.contains("path"));
  EXPECT_EQ(read_file(r["path"].get<std::string>()).rfind("// counters of the last profile of this build", 0), 0u);
}

TEST_F(ServerCuda, AnErrorInAnIncludedHeaderIsShownAtTheHeaderWithTheIncludeRelated) {
  client_->initialize();
  write("util.cuh", "#pragma once\n__device__ float twice(float v) { return 2 * undefined_in_header; }\n");
  std::string uri = open("user.cu", "#include <cstdio>\n#include \"util.cuh\"\n__global__ void k(float* x) { x[0] = twice(x[0]); }\n");
  client_->sync();
  const std::string header_uri = uri_from_path(dir_ / "util.cuh");
  json header = json(), source = json();
  for (const json& p : client_->take("textDocument/publishDiagnostics")) {
    if (p["params"]["uri"] == header_uri) header = p["params"]["diagnostics"];
    if (p["params"]["uri"] == uri) source = p["params"]["diagnostics"];
  }
  ASSERT_TRUE(header.is_array() && !header.empty()) << header.dump();
  EXPECT_EQ(header[0]["range"]["start"]["line"], 1);
  ASSERT_TRUE(header[0].contains("relatedInformation")) << header.dump(2);
  EXPECT_EQ(header[0]["relatedInformation"][0]["location"]["uri"], uri);
  EXPECT_EQ(header[0]["relatedInformation"][0]["location"]["range"]["start"]["line"], 1);
  ASSERT_TRUE(source.is_array() && !source.empty()) << source.dump();
  EXPECT_EQ(source[0]["range"]["start"]["line"], 1);
  EXPECT_NE(source[0]["message"].get<std::string>().find("in included file util.cuh:2"), std::string::npos) << source.dump();
}

// publishDiagnostics replaces a file's whole set: a header two open kernels include shows both
// includers' parts, and closing one keeps the other's.
TEST_F(ServerCuda, AHeaderTwoKernelsIncludeKeepsEachIncludersDiagnosticsUntilItCloses) {
  client_->initialize();
  write("util.cuh", "#pragma once\n__device__ float twice(float v) { return 2 * undefined_in_header; }\n");
  const std::string a = open("a.cu", "#include \"util.cuh\"\n__global__ void ka(float* x) { x[0] = twice(x[0]); }\n");
  client_->sync();
  const std::string b = open("b.cu", "#include \"util.cuh\"\n__global__ void kb(float* x) { x[1] = twice(x[1]); }\n");
  client_->sync();
  const std::string header_uri = uri_from_path(dir_ / "util.cuh");
  auto includers = [](const json& diagnostics) {
    std::set<std::string> out;
    for (const json& d : diagnostics)
      for (const json& r : d.value("relatedInformation", json::array())) out.insert(r["location"]["uri"].get<std::string>());
    return out;
  };
  json header = last_diagnostics(header_uri);
  ASSERT_TRUE(header.is_array()) << "no diagnostics published for the header";
  EXPECT_EQ(includers(header), (std::set<std::string>{a, b})) << header.dump(2);
  client_->notify("textDocument/didClose", {{"textDocument", {{"uri", b}}}});
  client_->sync();
  header = last_diagnostics(header_uri);
  ASSERT_TRUE(header.is_array()) << "closing b.cu published nothing for the header";
  EXPECT_EQ(includers(header), (std::set<std::string>{a})) << header.dump(2);
}

TEST_F(ServerCuda, AProjectFileBuildsWithItsCompileDatabaseAndItsHeaderThroughItsIncluder) {
  client_->initialize();
  write("proj/include/proj/util.cuh", "#pragma once\n#ifndef SCALE\n#error SCALE must be defined by the project\n#endif\n"
                                      "__device__ inline float scaled(float v) { return v * SCALE; }\n");
  const std::string src_text = "#include <proj/util.cuh>\n__global__ void k(float* x) { x[0] = scaled(x[0]); }\n";
  write("proj/src/k.cu", src_text);
  json db = json::array({{{"directory", (dir_ / "proj" / "build").string()},
                          {"arguments", {"/usr/local/cuda/bin/nvcc", "-DSCALE=3.0f", "-I../include", "--expt-relaxed-constexpr", "-c",
                                         (dir_ / "proj" / "src" / "k.cu").string(), "-o", "k.o"}},
                          {"file", (dir_ / "proj" / "src" / "k.cu").string()}}});
  write("proj/build/compile_commands.json", db.dump());
  std::string uri = open("proj/src/k.cu", src_text);
  const std::string header_text = "#pragma once\n#ifndef SCALE\n#error SCALE must be defined by the project\n#endif\n"
                                  "__device__ inline float scaled(float v) { return v * SCALE; }\n";
  std::string header_uri = open("proj/include/proj/util.cuh", header_text);
  client_->sync();
  json source = json(), header = json();
  for (const json& p : client_->take("textDocument/publishDiagnostics")) {
    if (p["params"]["uri"] == uri) source = p["params"]["diagnostics"];
    if (p["params"]["uri"] == header_uri) header = p["params"]["diagnostics"];
  }
  EXPECT_EQ(source, json::array()) << source.dump(2);
  EXPECT_EQ(header, json::array()) << header.dump(2);
  json hints = client_->call("textDocument/inlayHint", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 5}, {"character", 0}}}}}})["result"];
  EXPECT_EQ(hints.size(), 1u) << hints.dump();
}

// eglot sends {"settings": {}} on connect: settings merge, so initializationOptions stay in force.
TEST_F(ServerCuda, AConfigurationChangeKeepsTheSettingsItDoesNotName) {
  client_->call("initialize", {{"capabilities", json::object()}, {"initializationOptions", {{"arch", "sm_80"}}}});
  client_->notify("initialized", json::object());
  client_->notify("workspace/didChangeConfiguration", {{"settings", json::object()}});
  client_->notify("workspace/didChangeConfiguration", {{"settings", {{"hone", {{"seeds", 5}}}}}});
  std::string uri = open("plain.cu", kPlainFine);
  client_->sync();
  json result = client_->call("hone/result", {{"textDocument", {{"uri", uri}}}})["result"];
  EXPECT_EQ(result["compile"]["arch"], "sm_80") << result.dump().substr(0, 1000);
}

// Without rootUri or workspace folders, rootPath (older clients) names the workspace; a root that
// does not exist is no workspace, and nothing creates it: listings go beside the kernel.
TEST_F(ServerCuda, RootPathNamesTheWorkspaceAndAMissingRootIsNeverCreated) {
  client_.reset();
  ServerOptions options = server_options();
  options.engine.workspace.clear();
  auto ptx_folder = [&](const json& initialize) {
    start(options);
    client_->call("initialize", initialize);
    client_->notify("initialized", json::object());
    json ptx = execute("hone.showPtx", json::array({open("sub/plain.cu", kPlainFine)}));
    client_.reset();
    return ptx.contains("result") ? fs::path(ptx["result"].value("path", "")).parent_path() : fs::path(ptx.dump());
  };
  EXPECT_EQ(ptx_folder({{"capabilities", json::object()}, {"rootUri", nullptr}, {"rootPath", dir_.string()}}),
            dir_ / ".hone" / "asm");
  const fs::path missing = dir_ / "missing";
  EXPECT_EQ(ptx_folder({{"capabilities", json::object()}, {"rootUri", uri_from_path(missing)}}), dir_ / "sub" / ".hone" / "asm");
  EXPECT_FALSE(fs::exists(missing));
}

// PTX and SASS listings of one document are different jobs: while the build lane is busy, a SASS
// request does not replace a waiting PTX one; a request replaced by a newer one of its kind is
// answered RequestCancelled, never left to the "server did not reply" error.
TEST_F(ServerCuda, PtxAndSassRequestsOfOneDocumentDoNotReplaceEachOther) {
  client_.reset();
  ServerOptions options = server_options();
  options.cpu_workers = 1;
  start(options);
  client_->initialize();
  std::string uri = open("plain.cu", kPlainFine);
  auto listing = [&](const char* command) {
    return client_->send_request("workspace/executeCommand", {{"command", command}, {"arguments", json::array({uri})}});
  };
  std::vector<json> ids = {listing("hone.showPtx"), listing("hone.showSass"), listing("hone.showPtx"), listing("hone.showSass")};
  std::vector<json> replies;
  for (const json& id : ids) replies.push_back(client_->response(id));
  for (const json& r : replies) {
    if (!r.contains("error")) continue;
    EXPECT_NE(r["error"]["code"], -32603) << r.dump().substr(0, 500);
    const bool cancelled = r["error"]["code"] == -32800;
    EXPECT_TRUE(!cancelled || r["error"]["message"].get<std::string>().find("superseded") != std::string::npos) << r.dump();
  }
  ASSERT_TRUE(replies[2].contains("result")) << replies[2].dump().substr(0, 500);
  EXPECT_EQ(replies[2]["result"]["kind"], "ptx");
  EXPECT_TRUE(replies[3].contains("result") || replies[3]["error"]["code"] == -32803) << replies[3].dump().substr(0, 500);
}

// Hints sit after each kernel's declared name (not the first place its letters appear on the line),
// and a template kernel's instantiation ("void relu<float>(float*, int)") is relu's.
TEST_F(ServerCuda, KernelHintsAnchorAtTheDeclaredNameOfPlainAndTemplateKernels) {
  client_->initialize();
  const std::vector<std::string> lines = {
      "template <typename T> __global__ void relu(T* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = x[threadIdx.x] > T(0) ? x[threadIdx.x] : T(0); }",
      "template __global__ void relu<float>(float*, int);",
      "__global__ void __launch_bounds__(256) bounds(float* x) { x[threadIdx.x] = 0.f; }",
      "__global__ void id(float* x) { x[threadIdx.x] = 1.f; }"};
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  std::string uri = open("anchors.cu", text);
  client_->sync();
  EXPECT_EQ(last_diagnostics(uri), json::array());
  json hints = client_->call("textDocument/inlayHint", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 9}, {"character", 0}}}}}})["result"];
  auto hinted_after = [&](int line, const std::string& name_then_paren) {
    const std::size_t at = lines[static_cast<std::size_t>(line)].find(name_then_paren);
    const int character = static_cast<int>(at + name_then_paren.size() - 1);
    for (const json& h : hints)
      if (h["position"]["line"] == line && h["position"]["character"] == character) return true;
    return false;
  };
  EXPECT_TRUE(hinted_after(0, "relu(")) << hints.dump();
  EXPECT_TRUE(hinted_after(2, "bounds(")) << hints.dump();
  EXPECT_TRUE(hinted_after(3, " id(")) << hints.dump();
  const int relu_at = static_cast<int>(lines[0].find("relu(")) + 1;
  json hover = client_->call("textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", {{"line", 0}, {"character", relu_at}}}})["result"];
  ASSERT_TRUE(hover.is_object()) << hover.dump();
  const std::string md = hover["contents"]["value"];
  EXPECT_EQ(md.find("not built yet"), std::string::npos) << md;
  EXPECT_NE(md.find("regs"), std::string::npos) << md;
}

// The confined build of a project file reads the headers its relative includes reach, read-only,
// wherever they sit: here outside the workspace (a subfolder of the project).
TEST_F(ServerCuda, AProjectFileReadsHeadersItsIncludesReachOutsideTheWorkspace) {
  client_.reset();
  ServerOptions options = server_options();
  options.engine.workspace = dir_ / "proj" / "src";
  write("proj/include/h.cuh", "#pragma once\n__device__ inline float doubled(float v) { return 2 * v; }\n");
  const std::string text = "#include \"../include/h.cuh\"\n__global__ void k(float* x) { x[0] = doubled(x[0]); }\n";
  start(options);
  client_->initialize();
  std::string uri = open("proj/src/a.cu", text);
  client_->sync();
  EXPECT_EQ(last_diagnostics(uri), json::array());
  json hints = client_->call("textDocument/inlayHint", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 5}, {"character", 0}}}}}})["result"];
  EXPECT_EQ(hints.size(), 1u) << hints.dump();
}

TEST_F(ServerCuda, TheTaskSkeletonCommandWritesAPairedTaskAndTheLensesFollow) {
  client_->initialize();
  const char* kernel = "#include \"hone.h\"\n\nvoid forward(hone::In<float> x, hone::Out<float> out) {\n"
                       "  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];\n}\n";
  std::string uri = open("copy.cpp", kernel);
  client_->sync();
  json lenses = client_->call("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}})["result"];
  ASSERT_EQ(lenses.size(), 4u) << lenses.dump();
  EXPECT_EQ(lenses[0]["command"]["command"], "hone.createTask");
  json actions = client_->call("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}}, {"context", {{"diagnostics", json::array()}}}})["result"];
  bool offered = false;
  for (const json& a : actions) offered = offered || a["command"]["command"] == "hone.createTask";
  EXPECT_TRUE(offered) << actions.dump();
  json only_refactors = client_->call("textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}}, {"context", {{"diagnostics", json::array()}, {"only", {"refactor"}}}}})["result"];
  EXPECT_EQ(only_refactors, json::array()) << "context.only names the kinds wanted";

  json created = execute(lenses[0]["command"]["command"], lenses[0]["command"]["arguments"]);
  ASSERT_TRUE(created.contains("result")) << created.dump();
  EXPECT_TRUE(fs::is_regular_file(dir_ / "copy.py"));
  EXPECT_FALSE(client_->take("window/showMessage").empty());
  // The skeleton is a task the worker loads: the check runs (identity reference, copy kernel).
  lenses = client_->call("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}})["result"];
  EXPECT_EQ(lenses[0]["command"]["title"], "hone: not checked");
  json again = execute("hone.createTask", json::array({uri}));
  EXPECT_TRUE(again.contains("error")) << "a second skeleton overwrote the first";
  json checked = execute("hone.check", json::array({uri, {{"timing", false}}}));
  ASSERT_TRUE(checked.contains("result")) << checked.dump().substr(0, 2000);
  EXPECT_EQ(checked["result"]["result"]["verdict"]["status"], "correct") << checked.dump().substr(0, 3000);
  bool shown = false;
  for (const json& m : client_->take("window/showMessage"))
    shown = shown || m["params"]["message"].get<std::string>().find("correct") != std::string::npos;
  EXPECT_TRUE(shown);
  lenses = client_->call("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}})["result"];
  EXPECT_EQ(lenses[0]["command"]["title"].get<std::string>().rfind("✓ correct", 0), 0u) << lenses.dump();
}

}  // namespace
}  // namespace hone::lsp::test
