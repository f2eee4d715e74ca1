#pragma once
// The worker side of the tuner (see worker.cpp): answers measure requests on `reply_fd`
// until its input ends. Returns the process exit code.
namespace ktune {

int run_worker(int reply_fd);

}  // namespace ktune
