// The include guard: which directives reach outside the kernel's folder, with their positions.
#include "sandbox/include_guard.h"

#include <gtest/gtest.h>

#include "sandbox_fixture.h"

namespace hone::sandbox {
namespace {

using testing::Tree;
using testing::write_text;
namespace fs = std::filesystem;

std::vector<IncludeViolation> check(const Tree& t, const std::string& text) {
  return check_includes(t.kernel / "k.cu", text, t.kernel);
}

TEST(IncludeGuard, HonestKernelPasses) {
  Tree t;
  write_text(t.kernel / "local.cuh", "#pragma once\n#include \"sub/more.cuh\"\n");
  write_text(t.kernel / "sub" / "more.cuh", "#include \"../local.cuh\"\n");
  const char* src =
      "#include \"hone.h\"\n#include <torch/extension.h>\n#include <cuda_runtime.h>\n#include \"local.cuh\"\n"
      "// #include \"/etc/shadow\" is only a comment\n/* #include </etc/shadow> */\n"
      "const char* s = \"#include </etc/shadow>\";\nvoid f(Foo& foo) { foo.include(1); }\n";
  auto v = check(t, src);
  EXPECT_TRUE(v.empty()) << (v.empty() ? "" : format_violation(v[0]));
}

TEST(IncludeGuard, AbsoluteAndClimbingIncludesAreRefusedWithTheirPosition) {
  Tree t;
  auto v = check(t,
                 "int a;\n  #  include \"/etc/shadow\"\n#include <../../../root/.ssh/id_rsa>\n"
                 "#include \"../../../../root/.ssh/id_rsa\"\n#include_next </etc/passwd>\n");
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].line, 2);
  EXPECT_EQ(v[0].column, 3);
  EXPECT_EQ(v[1].line, 3);
  EXPECT_EQ(v[2].line, 4);
  EXPECT_NE(v[2].message.find("/root/.ssh/id_rsa"), std::string::npos) << v[2].message;
  EXPECT_EQ(v[3].line, 5);
  EXPECT_EQ(format_violation(v[0]).rfind((t.kernel / "k.cu").string() + ":2:3: error: ", 0), 0u)
      << format_violation(v[0]);
}

TEST(IncludeGuard, SiblingFilesOutsideTheKernelFolderAreRefused) {
  Tree t;
  auto v = check(t, "#include \"../secret.txt\"\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("outside") == std::string::npos ? v[0].message.find("kernel's folder")
                                                              : v[0].message.find("outside"),
            std::string::npos);
}

TEST(IncludeGuard, ComputedIncludesEmbedAndIncbinAreRefused) {
  Tree t;
  auto v = check(t,
                 "#define P \"/etc/shadow\"\n#include P\n#embed \"key.bin\"\n"
                 "asm(\".section .rodata\\n\\t.incbin \\\"/etc/shadow\\\"\");\n"
                 "asm(\".include \\\"/etc/shadow\\\"\");\n");
  ASSERT_EQ(v.size(), 4u);
  std::vector<int> lines;
  for (const auto& x : v) lines.push_back(x.line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{2, 3, 4, 5}));
}

TEST(IncludeGuard, ContinuedLinesAreJoined) {
  Tree t;
  auto v = check(t, "int x;\n#include \\\n  \"/etc/shadow\"\nint y;\n#include \"/etc/passwd\"\n");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].line, 2);
  EXPECT_EQ(v[1].line, 5);
}

TEST(IncludeGuard, LocalHeadersAreCheckedToo) {
  Tree t;
  write_text(t.kernel / "helper.cuh", "// helper\n\n#include \"/etc/shadow\"\n");
  auto v = check(t, "#include \"helper.cuh\"\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].file, t.kernel / "helper.cuh");
  EXPECT_EQ(v[0].line, 3);
}

TEST(IncludeGuard, LinksOutOfTheFolderAreRefused) {
  Tree t;
  fs::create_symlink(t.home / ".ssh" / "id_rsa", t.kernel / "innocent.h");
  auto v = check(t, "#include \"innocent.h\"\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("link"), std::string::npos) << v[0].message;
}

TEST(IncludeGuard, IncludeCyclesEnd) {
  Tree t;
  write_text(t.kernel / "a.h", "#include \"b.h\"\n");
  write_text(t.kernel / "b.h", "#include \"a.h\"\n");
  EXPECT_TRUE(check(t, "#include \"a.h\"\n").empty());
}

}  // namespace
}  // namespace hone::sandbox
