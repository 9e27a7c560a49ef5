// A torch-form kernel built by hone and called from C++: dlopen registers its op with the
// dispatcher of the LibTorch this test links (Debian's), and a boxed call runs forward with
// tensor, float, int and bool arguments and a tuple result. Links LibTorch, unlike the other
// toolchain tests, so it lives in its own executable.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <ATen/core/dispatch/Dispatcher.h>

#include "toolchain/torch_env.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using TorchDispatch = ToolchainTest;

TEST_F(TorchDispatch, DlopenRegistersTheOpAndABoxedCallRunsForward) {
  auto torch_env = find_torch_env();
  if (!torch_env.env) GTEST_SKIP() << "no Python with torch: " << torch_env.error;
  const std::string linked = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + ".";
  if (torch_env.env->version.rfind(linked, 0) != 0)
    GTEST_SKIP() << "the Python torch (" << torch_env.env->version << ") is not the LibTorch this test links (" << linked << "x)";

  auto path = write("affine.cpp", R"(#include <torch/extension.h>
#include <tuple>
std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x, double scale, int64_t offset, bool negate) {
  auto y = x * scale + static_cast<double>(offset);
  return {negate ? -y : y, x.sum()};
}
)");
  BuildResult r = build(path);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;

  void* handle = ::dlopen(r.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << ::dlerror();
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow((r.op_namespace + "::forward").c_str(), "");
  std::ostringstream schema;
  schema << op.schema();
  EXPECT_EQ(schema.str(), r.op_namespace + "::forward(Tensor a0, float a1, int a2, bool a3) -> (Tensor, Tensor)");

  at::Tensor x = torch::arange(6, torch::kFloat32);
  torch::jit::Stack stack{x, 2.0, int64_t{3}, true};
  op.callBoxed(&stack);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_TRUE(torch::equal(stack[0].toTensor(), -(x * 2 + 3)));
  EXPECT_EQ(stack[1].toTensor().item<float>(), 15.0f);

  // A wrong argument type is refused by the dispatcher with the schema's words, not a crash.
  torch::jit::Stack wrong{x, std::string("no"), int64_t{3}, true};
  EXPECT_THROW(op.callBoxed(&wrong), c10::Error);
}

}  // namespace
}  // namespace hone::toolchain::testing
