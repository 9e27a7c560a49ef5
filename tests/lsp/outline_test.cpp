// tests/lsp/outline_test.cpp: where kernel anchors sit in a line (the declared name, not the first
// place its letters appear) and how a build report's demangled kernel names match them.
#include <gtest/gtest.h>

#include "engine/kernel_files.h"
#include "lsp/outline.h"

namespace hone::lsp {
namespace {

TEST(Outline, DeclaratorColumnIsTheDeclaredNameNotItsFirstLetters) {
  const std::string bounds = "__global__ void __launch_bounds__(256) bounds(float* x) {";
  EXPECT_EQ(declarator_column(bounds, "bounds"), bounds.find(" bounds(") + 1);
  const std::string id = "__global__ void id(float* x) { x[0] = 1.f; }";
  EXPECT_EQ(declarator_column(id, "id"), id.find("id("));
  const std::string tmpl = "template __global__ void relu<float>(float*, int);";
  EXPECT_EQ(declarator_column(tmpl, "relu"), tmpl.find("relu<"));
  const std::string spaced = "__global__ void  scale  (float* x)";
  EXPECT_EQ(declarator_column(spaced, "scale"), spaced.find("scale"));
  EXPECT_EQ(declarator_column("split_decl_x y", "split_decl"), std::string_view::npos);
  EXPECT_EQ(declarator_column("void k;", "k"), 5u);
}

TEST(Outline, KernelBaseNameDropsReturnTypeScopeTemplateArgumentsAndParams) {
  EXPECT_EQ(kernel_base_name("void relu<float>(float*, int)"), "relu");
  EXPECT_EQ(kernel_base_name("void ns::tile<128, float>(float*, int)"), "tile");
  EXPECT_EQ(kernel_base_name("relu_kernel(float const*, float*, long)"), "relu_kernel");
  EXPECT_EQ(kernel_base_name("ops::scale(float*)"), "scale");
  EXPECT_EQ(kernel_base_name("c_kernel"), "c_kernel");
  EXPECT_EQ(kernel_base_name("void apply<&(double_it(float))>(float*, void (*)(int))"), "apply");
}

}  // namespace
}  // namespace hone::lsp
