// tests/optimize/extraction_test.cpp: taking kernels out of model replies: fence styles, the
// block with forward, several blocks, cut-off replies, prose-only replies, wrong signatures, CUDA
// offered for a CPU kernel.
#include <gtest/gtest.h>

#include "optimize/code_extraction.h"

namespace {

const char* kRawKernel =
    "#include \"hone.h\"\n"
    "__global__ void relu_kernel(const float* x, float* y, long n) {}\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {\n"
    "  relu_kernel<<<1, 256, 0, stream>>>(x.data(), out.data(), x.numel());\n"
    "}\n";

hone::ExpectedSignature relu_signature() {
  return {2, 1, "void forward(hone::In<float> x, hone::Out<float> out0, hone::Stream stream)",
          "torch::Tensor forward(torch::Tensor x)"};
}

TEST(FindCodeBlocks, ReadsFenceStylesAndLanguages) {
  auto blocks = hone::find_code_blocks(
      "text\n```cuda\na\n```\n~~~cpp title=x\nb\n~~~\n````C++\nc\n```\n````\n```\nuntagged\n```\n  ```python\nd\n  ```\n");
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].language, "cuda");
  EXPECT_EQ(blocks[0].code, "a\n");
  EXPECT_EQ(blocks[1].language, "cpp");
  EXPECT_EQ(blocks[2].language, "c++");
  EXPECT_EQ(blocks[2].code, "c\n```\n");  // a shorter fence does not close a longer one
  EXPECT_EQ(blocks[3].language, "");
  EXPECT_EQ(blocks[4].language, "python");
  for (const auto& b : blocks) EXPECT_TRUE(b.closed);
}

TEST(FindCodeBlocks, AnUnclosedBlockIsMarked) {
  auto blocks = hone::find_code_blocks("```cuda\nvoid forward(");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].closed);
}

TEST(ForwardParameters, CountsTopLevelParametersOfTheDefinition) {
  auto p = hone::forward_parameters(
      "// forward(a) in a comment\n"
      "torch::Tensor forward(torch::Tensor x, int64_t dim);\n"  // a declaration is skipped
      "std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x, std::map<int, int> m, int64_t dim) {\n}\n");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[1], "std::map<int, int> m");
  EXPECT_FALSE(hone::forward_parameters("def forward(self, x):\n    return x\n"));
  EXPECT_EQ(hone::forward_parameters("void forward(void) {}")->size(), 0u);
}

TEST(ExtractKernel, TakesTheLastCompleteBlockWithForward) {
  std::string reply = std::string("Here is my plan.\n```cuda\n// first try\nvoid forward(hone::In<float> x, hone::Out<float> o) {}\n```\n") +
                      "Better:\n```cuda\n" + kRawKernel + "```\nAnd a test:\n```python\nprint(1)\n```\n";
  auto e = hone::extract_kernel(reply, "cuda", relu_signature());
  ASSERT_TRUE(e.source) << e.reason;
  EXPECT_EQ(*e.source, kRawKernel);
  EXPECT_TRUE(e.status.empty());
}

TEST(ExtractKernel, JoinsKernelsDefinedInAnEarlierBlock) {
  std::string reply =
      "The kernel:\n```cuda\n__global__ void relu_kernel(const float* x, float* y, long n) { }\n```\n"
      "The host side:\n```cpp\n#include \"hone.h\"\nvoid forward(hone::In<float> x, hone::Out<float> out, hone::Stream s) {\n"
      "  relu_kernel<<<1, 1, 0, s>>>(x.data(), out.data(), 1);\n}\n```\n";
  auto e = hone::extract_kernel(reply, "cuda", relu_signature());
  ASSERT_TRUE(e.source) << e.reason;
  EXPECT_NE(e.source->find("__global__ void relu_kernel"), std::string::npos);
  EXPECT_LT(e.source->find("__global__"), e.source->find("void forward"));
}

TEST(ExtractKernel, UntaggedBlocksCount) {
  auto e = hone::extract_kernel(std::string("```\n") + kRawKernel + "```", "cuda");
  ASSERT_TRUE(e.source);
}

TEST(ExtractKernel, ARepliesWithoutUsableCodeGetAReason) {
  auto none = hone::extract_kernel("I think you should use shared memory.", "cuda");
  EXPECT_FALSE(none.source);
  EXPECT_EQ(none.status, "no_code");
  EXPECT_NE(none.reason.find("no fenced code block"), std::string::npos);

  auto no_forward = hone::extract_kernel("```cuda\n__global__ void k() {}\n```", "cuda");
  EXPECT_EQ(no_forward.status, "no_code");
  EXPECT_NE(no_forward.reason.find("defines the host function forward"), std::string::npos) << no_forward.reason;

  auto python = hone::extract_kernel("```python\nclass ModelNew:\n    def forward(self, x):\n        return x\n```", "cuda");
  EXPECT_EQ(python.status, "no_code");
  EXPECT_NE(python.reason.find("Python"), std::string::npos) << python.reason;

  auto cut = hone::extract_kernel(std::string("```cuda\n") + kRawKernel, "cuda");
  EXPECT_EQ(cut.status, "no_code");
  EXPECT_NE(cut.reason.find("cut off"), std::string::npos) << cut.reason;
}

TEST(ExtractKernel, AWrongSignatureIsRefusedWithTheExpectedOne) {
  auto e = hone::extract_kernel(
      "```cuda\nvoid forward(hone::In<float> x, hone::In<float> y, hone::In<float> z, hone::Out<float> o, "
      "hone::Stream s) {}\n```",
      "cuda", relu_signature());
  EXPECT_FALSE(e.source);
  EXPECT_EQ(e.status, "wrong_signature");
  EXPECT_NE(e.reason.find("forward takes 5 parameter(s)"), std::string::npos) << e.reason;
  EXPECT_NE(e.reason.find("hone::Out<float> out0"), std::string::npos) << e.reason;
  // Both forms fit: raw with or without the stream, torch with the inputs only.
  EXPECT_TRUE(hone::extract_kernel("```cpp\nvoid forward(hone::In<float> x, hone::Out<float> o) {}\n```", "cuda",
                                   relu_signature()).source);
  EXPECT_TRUE(hone::extract_kernel("```cpp\ntorch::Tensor forward(torch::Tensor x) { return x; }\n```", "cuda",
                                   relu_signature()).source);
}

TEST(ExtractKernel, CudaIsRefusedForACpuKernel) {
  auto e = hone::extract_kernel(std::string("```cuda\n") + kRawKernel + "```", "cpp", relu_signature());
  EXPECT_FALSE(e.source);
  EXPECT_EQ(e.status, "wrong_signature");
  EXPECT_NE(e.reason.find("CPU"), std::string::npos) << e.reason;
}

// A KernelBench answer (issue 15): the user's file is a .py defining ModelNew, so a reply in that
// form is the proposal, whole.
TEST(ExtractKernel, AModelNewReplyIsTheProposalForAnAnswerFile) {
  const std::string answer =
      "import torch\nfrom torch.utils.cpp_extension import load_inline\nsrc = 'torch::Tensor f(torch::Tensor x);'\n"
      "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n";
  auto e = hone::extract_kernel("Here is a faster one:\n```cuda\n__global__ void k() {}\n```\n```python\n" + answer + "```\n", "python");
  ASSERT_TRUE(e.source) << e.reason;
  EXPECT_EQ(*e.source, answer);
  EXPECT_EQ(e.status, "");

  auto hone_form = hone::extract_kernel(std::string("```cuda\n") + kRawKernel + "```\n", "python");
  EXPECT_EQ(hone_form.status, "no_code");
  EXPECT_NE(hone_form.reason.find("class ModelNew"), std::string::npos) << hone_form.reason;

  auto cut = hone::extract_kernel("```python\n" + answer, "python");
  EXPECT_EQ(cut.status, "no_code");
  EXPECT_NE(cut.reason.find("cut off"), std::string::npos) << cut.reason;
}

}  // namespace
