// wmma_emulation.h: nvcuda::wmma on the host for cuda_emulation.h (included by it): fragments
// hold each lane's elements under a scrambled, per-type element-to-position map; loads and stores
// check CUDA's alignment and stride rules; mma_sync is a warp exchange computing D = A B + C in
// float32 (bf16 and tf32 operands are exact in float32, as on tensor cores).
#pragma once

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision

// cvt.rna.tf32.f32: round to 10 mantissa bits, ties away from zero.
inline float __float_to_tf32(float x) {
  if (!std::isfinite(x)) return x;
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u = (u + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

template <class Use, int M, int N, int K>
struct Extent;
template <int M, int N, int K>
struct Extent<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
};
template <int M, int N, int K>
struct Extent<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
};
template <int M, int N, int K>
struct Extent<accumulator, M, N, K> {
  static constexpr int rows = M, cols = N;
};

template <class T>
struct Storage {
  using type = T;
};
template <>
struct Storage<precision::tf32> {
  using type = float;
};

inline float as_float(float x) { return x; }
inline float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }
inline void from_float(float& dst, float x) { dst = x; }
inline void from_float(__nv_bfloat16& dst, float x) { dst = __float2bfloat16(x); }

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  static constexpr int kRows = Extent<Use, M, N, K>::rows, kCols = Extent<Use, M, N, K>::cols;
  enum { num_elements = kRows * kCols / 32 };
  typename Storage<T>::type x[num_elements];

  // map()[lane * num_elements + i]: the row-major position of the lane's element i.
  static const std::array<int, kRows * kCols>& map() {
    static const std::array<int, kRows * kCols> m = [] {
      std::array<int, kRows * kCols> a{};
      for (int i = 0; i < kRows * kCols; ++i) a[static_cast<std::size_t>(i)] = i;
      std::mt19937 rng(static_cast<unsigned>(typeid(fragment).hash_code()));
      std::shuffle(a.begin(), a.end(), rng);
      return a;
    }();
    return m;
  }
  static int position(int i) { return map()[static_cast<std::size_t>(hone_emulation::lane() * num_elements + i)]; }
};

template <class S>
void check_operand(const S* p, unsigned ldm, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % 32 != 0)
    hone_emulation::fail(std::string(what) + ": the pointer must be 256-bit (32-byte) aligned");
  if ((ldm * sizeof(S)) % 16 != 0)
    hone_emulation::fail(std::string(what) + ": ldm must be a multiple of 16 bytes");
}

template <class Use, int M, int N, int K, class T, class Layout, class S>
void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const S* p, unsigned ldm) {
  using F = fragment<Use, M, N, K, T, Layout>;
  check_operand(p, ldm, "load_matrix_sync");
  for (int i = 0; i < F::num_elements; ++i) {
    const int pos = F::position(i), r = pos / F::kCols, c = pos % F::kCols;
    const S& e = std::is_same_v<Layout, row_major> ? p[r * ldm + c] : p[c * ldm + r];
    from_float(f.x[i], as_float(e));
  }
}

template <int M, int N, int K>
void load_matrix_sync(fragment<accumulator, M, N, K, float>& f, const float* p, unsigned ldm, layout_t layout) {
  using F = fragment<accumulator, M, N, K, float>;
  check_operand(p, ldm, "load_matrix_sync");
  for (int i = 0; i < F::num_elements; ++i) {
    const int pos = F::position(i), r = pos / F::kCols, c = pos % F::kCols;
    f.x[i] = layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r];
  }
}

template <int M, int N, int K>
void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float>& f, unsigned ldm, layout_t layout) {
  using F = fragment<accumulator, M, N, K, float>;
  check_operand(p, ldm, "store_matrix_sync");
  for (int i = 0; i < F::num_elements; ++i) {
    const int pos = F::position(i), r = pos / F::kCols, c = pos % F::kCols;
    (layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r]) = f.x[i];
  }
}

template <class Use, int M, int N, int K, class T, class Layout>
void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, float v) {
  for (auto& e : f.x) from_float(e, v);
}

// D = A B + C: every lane publishes its elements, then computes its own elements of D.
template <int M, int N, int K, class T, class LA, class LB>
void mma_sync(fragment<accumulator, M, N, K, float>& d, const fragment<matrix_a, M, N, K, T, LA>& a,
              const fragment<matrix_b, M, N, K, T, LB>& b, const fragment<accumulator, M, N, K, float>& c) {
  using FA = fragment<matrix_a, M, N, K, T, LA>;
  using FB = fragment<matrix_b, M, N, K, T, LB>;
  using FC = fragment<accumulator, M, N, K, float>;
  auto& w = hone_emulation::warp();
  const unsigned turn = hone_emulation::fiber().exchanges++ % 2;
  for (int i = 0; i < FA::num_elements; ++i) w.a[turn][FA::position(i)] = as_float(a.x[i]);
  for (int i = 0; i < FB::num_elements; ++i) w.b[turn][FB::position(i)] = as_float(b.x[i]);
  for (int i = 0; i < FC::num_elements; ++i) w.c[turn][FC::position(i)] = c.x[i];
  hone_emulation::arrive_and_wait(w.barrier);
  for (int i = 0; i < FC::num_elements; ++i) {
    const int pos = FC::position(i), r = pos / N, col = pos % N;
    float sum = w.c[turn][pos];
    for (int k = 0; k < K; ++k) sum += w.a[turn][r * K + k] * w.b[turn][k * N + col];
    d.x[i] = sum;
  }
}

}  // namespace nvcuda::wmma
