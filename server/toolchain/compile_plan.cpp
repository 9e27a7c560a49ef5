// toolchain/compile_plan.cpp: building nvcc / host compiler commands for both kernel forms.
#include "toolchain/compile_plan.h"

#include <algorithm>
#include <cctype>

namespace hone::toolchain {

namespace {

// Quotes a path for a #line directive.
std::string line_literal(const std::string& path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// nvcc's target flag. An arch-specific target (sm_90a: wgmma, setmaxnreg) is named in the -gencode
// form: nvcc 13.0's -arch=sm_90a shorthand also runs a plain compute_90 pass that rejects those
// instructions, and keeps the cubin under another name (kernel.compute_90a.sm_90a.cubin).
std::string target_flag(const std::string& arch) {
  if (arch.empty() || std::isdigit(static_cast<unsigned char>(arch.back()))) return "-arch=" + arch;
  const std::string virt = "compute_" + arch.substr(3);
  return "-gencode=arch=" + virt + ",code=[" + arch + "," + virt + "]";
}

// A plain build: the file compiled to an object with the project's flags (hone's arch, -lineinfo
// and ptxas's report for the facts).
CompilePlan plain_plan(const PlanInputs& in, CompilePlan plan) {
  const bool cuda = in.language == KernelLanguage::Cuda;
  const bool optimizes = std::any_of(in.project_flags.begin(), in.project_flags.end(),
                                     [](const std::string& f) { return f.starts_with("-O"); });
  auto& a = plan.argv;
  a.push_back(in.compiler.string());
  if (cuda) {
    a.insert(a.end(), {"-ccbin", in.host_compiler.string(), target_flag(in.arch), "-lineinfo", "-Xptxas", "-v", "--keep",
                       "--keep-dir", plan.keep_dir});
  } else {
    a.push_back("-std=c++17");
  }
  if (!optimizes) a.push_back("-O3");
  a.insert(a.end(), in.project_flags.begin(), in.project_flags.end());
  a.push_back("-I" + in.kernel.parent_path().string());
  a.insert(a.end(), in.extra_flags.begin(), in.extra_flags.end());
  a.insert(a.end(), {"-c", plan.tu_name, "-o", "kernel.o"});
  plan.library_name = "kernel.o";
  return plan;
}

}  // namespace

bool names_16bit_floats(const std::vector<std::string_view>& texts) {
  for (std::string_view text : texts) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* word : {"half", "bfloat16", "bf16"})
      if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

bool names_std_library(const std::vector<std::string_view>& texts) {
  for (std::string_view text : texts)
    for (const char* word : {"std::", "string", "using namespace", "runtime_error", "out_of_range"})
      if (text.find(word) != std::string_view::npos) return true;
  return false;
}

std::vector<std::string> torch_compile_flags(const TorchEnv& torch) {
  std::vector<std::string> flags{"-std=c++17", std::string("-D_GLIBCXX_USE_CXX11_ABI=") + (torch.cxx11_abi ? "1" : "0")};
  for (const auto& dir : torch.include_dirs) {
    flags.push_back("-isystem");
    flags.push_back(dir.string());
  }
  return flags;
}

CompilePlan make_compile_plan(const PlanInputs& in) {
  CompilePlan plan;
  const bool cuda = in.language == KernelLanguage::Cuda;
  const bool torch = in.form == KernelForm::Torch;
  plan.tu_name = cuda ? "kernel.cu" : "kernel.cpp";

  plan.tu_text = in.prelude + in.prefix;
  if (!in.prefix.empty() && in.prefix.back() != '\n') plan.tu_text += "\n";
  plan.tu_text += "#line 1 " + line_literal(in.kernel.string()) + "\n" + in.source;
  if (!in.source.empty() && in.source.back() != '\n') plan.tu_text += "\n";
  if (in.plain) return plain_plan(in, std::move(plan));
  plan.tu_text += "#line 1 \"<hone entry>\"\n";
  if (torch && !in.inline_functions.empty()) {
    plan.tu_text += "#include \"hone/inline_entry.h\"\nHONE_INLINE_FUNCTIONS(";
    for (const auto& f : in.inline_functions) plan.tu_text += "HONE_INLINE_FUNCTION(" + f + ") ";
    plan.tu_text += ")\nHONE_INLINE_EXPORTS\n";
  } else {
    plan.tu_text += torch ? "#include \"hone/torch_entry.h\"\n" : "#include \"hone/raw_entry.h\"\n";
  }

  const std::filesystem::path include = in.share_dir / "include";
  auto& a = plan.argv;
  a.push_back(in.compiler.string());
  if (cuda) {
    a.insert(a.end(), {"-ccbin", in.host_compiler.string(), target_flag(in.arch), "-O3", "-lineinfo", "-Xptxas", "-v",
                       "--keep", "--keep-dir", plan.keep_dir, "-Xcompiler", "-fPIC", "-shared"});
  } else {
    a.insert(a.end(), {"-O3", "-fPIC", "-shared", "-std=c++17"});
  }
  if (torch) {
    a.push_back("-I" + (include / "shim").string());
    a.push_back("-I" + include.string());
    auto flags = torch_compile_flags(*in.torch);
    a.insert(a.end(), flags.begin(), flags.end());
    a.push_back("-DHONE_OP_NAMESPACE=" + in.op_namespace);
    if (in.torch_light) a.insert(a.end(), {"-DHONE_TORCH_LIGHT", "-I."});
  } else {
    a.push_back("-I" + include.string());
    if (cuda && !in.fp16_headers) a.push_back("-DHONE_NO_FP16_HEADERS");
    if (!in.std_headers) a.push_back("-DHONE_LEAN_STD");
  }
  a.push_back("-I" + in.kernel.parent_path().string());
  a.insert(a.end(), in.extra_flags.begin(), in.extra_flags.end());
  a.push_back(plan.tu_name);
  if (torch && in.glue_object) a.push_back(in.glue_object->string());
  a.insert(a.end(), in.link_flags.begin(), in.link_flags.end());
  a.insert(a.end(), {"-o", plan.library_name});

  // Link: bind the library's own symbols to itself (two kernels loaded in one process each call
  // their own forward), and refuse undefined symbols so a missing definition is a link error now
  // rather than a dlopen failure later.
  std::vector<std::string> link{"-Bsymbolic", "--no-undefined"};
  if (torch) {
    const std::string lib = in.torch->library_dir.string();
    link.insert(link.end(), {"-rpath", lib});
    a.push_back("-L" + lib);
    for (const char* l : {"-ltorch", "-ltorch_cpu", "-lc10"}) a.push_back(l);
    if (cuda && in.torch->has_cuda_libraries)
      for (const char* l : {"-ltorch_cuda", "-lc10_cuda"}) a.push_back(l);
  }
  for (const auto& flag : link) {
    if (cuda) {
      a.push_back("-Xlinker");
      a.push_back(flag);
    } else {
      a.push_back("-Wl," + flag);
    }
  }
  return plan;
}

}  // namespace hone::toolchain
