#pragma once
// Shared by the fuzz targets. A broken invariant aborts, so that libFuzzer records the
// input as a crash and the plain replay (replay_main.cpp) fails the same way without
// any sanitizer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <condition_variable>
#include <functional>
#include <mutex>

#include <pthread.h>

#define KTUNE_FUZZ_CHECK(cond)                                                               \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace ktune::fuzz {

// Each input runs on a thread with a bounded stack: a reader whose recursion follows its
// input's nesting then overflows on inputs of tens of kilobytes, small enough to keep as
// regression files (the usual 8 MiB would need hundreds). The deepest nesting ktune
// accepts needs about 0.2 MiB in an optimized build and 2 MiB under AddressSanitizer,
// whose frames are far larger.
#if defined(__SANITIZE_ADDRESS__)
#define KTUNE_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KTUNE_FUZZ_ASAN 1
#endif
#endif
#ifdef KTUNE_FUZZ_ASAN
inline constexpr std::size_t kStackBytes = 4 << 20;
#else
inline constexpr std::size_t kStackBytes = 1 << 20;
#endif

// Runs `job` on one thread with a stack of kStackBytes, made once and kept: creating a
// thread per input costs more than most inputs do under AddressSanitizer.
inline void on_small_stack(const std::function<void()>& job) {
  struct Worker {
    std::mutex mutex;
    std::condition_variable wake;
    const std::function<void()>* job = nullptr;  // set: waiting to run; cleared: done

    Worker() {
      pthread_attr_t attr;
      KTUNE_FUZZ_CHECK(pthread_attr_init(&attr) == 0);
      KTUNE_FUZZ_CHECK(pthread_attr_setstacksize(&attr, kStackBytes) == 0);
      pthread_t thread;
      KTUNE_FUZZ_CHECK(pthread_create(&thread, &attr, &Worker::loop, this) == 0);
      pthread_attr_destroy(&attr);
      pthread_detach(thread);
    }
    static void* loop(void* self) {
      auto& w = *static_cast<Worker*>(self);
      std::unique_lock lock(w.mutex);
      while (true) {
        w.wake.wait(lock, [&] { return w.job != nullptr; });
        (*w.job)();
        w.job = nullptr;
        w.wake.notify_all();
      }
    }
  };
  static Worker* worker = new Worker;  // never destroyed: its thread outlives main()
  std::unique_lock lock(worker->mutex);
  worker->job = &job;
  worker->wake.notify_all();
  worker->wake.wait(lock, [&] { return worker->job == nullptr; });
}

}  // namespace ktune::fuzz
