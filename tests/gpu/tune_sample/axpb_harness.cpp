// The harness of the axpb sample: one input, one output; the reference comes from the
// host (REF=0) or from cuBLAS on the GPU (REF=1).
#include <ktune/harness.hpp>

#include <cublas_v2.h>

#include "axpb_launch.hpp"

void ktune_harness(ktune::Harness& h) {
  const auto n = static_cast<int>(h.key("N"));
  auto x = h.input<float>(n, ktune::fill::random(42));
  auto y = h.output<float>(n, ktune::fill::constant(-7));
  if (h.key("REF") == 0) {
    h.expect(y, [&](std::span<float> ref) {
      auto in = h.host(x);
      for (int i = 0; i < n; ++i) ref[i] = 2.0f * in[i] + 1.0f;
    });
  } else {
    auto ones = h.input<float>(n, ktune::fill::constant(1));
    h.expect_on_device(y, [&](ktune::Buffer<float> ref, CUstream stream) {
      cublasHandle_t handle = nullptr;
      if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw ktune::Error("cublasCreate failed");
      cublasSetStream(handle, stream);
      const float two = 2, one = 1;
      bool ok = cublasScopy(handle, n, x.data(), 1, ref.data(), 1) == CUBLAS_STATUS_SUCCESS &&
                cublasSscal(handle, n, &two, ref.data(), 1) == CUBLAS_STATUS_SUCCESS &&
                cublasSaxpy(handle, n, &one, ones.data(), 1, ref.data(), 1) == CUBLAS_STATUS_SUCCESS;
      cublasDestroy(handle);  // waits for the work queued above
      if (!ok) throw ktune::Error("cuBLAS reference failed");
    });
  }
  h.launch(axpb_launch(x, y, n));
}
