// A worker for the WorkerProcess tests: each request's "op" makes it behave well or badly
// (crash, exit, hang, garbage, ...), so the tuner side can be tested without a GPU.
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/worker_protocol.hpp"

namespace {

[[noreturn]] void hang() {
  for (;;) ::pause();
}

}  // namespace

int main(int argc, char** argv) {
  const int reply_fd = ktune::WorkerChannel::reply_fd_from_args(argc, argv);
  try {
    ktune::WorkerChannel channel(reply_fd);
    channel.reply({{"ready", true}});
    while (auto request = channel.next_request()) {
      const std::string op = request->value("op", "");
      if (op == "echo") {
        channel.reply(*request);
      } else if (op == "crash") {
        rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);  // a test crash should leave no core file
        std::signal(SIGSEGV, SIG_DFL);       // past any sanitizer's handler: a real death
        std::raise(SIGSEGV);
      } else if (op == "exit") {
        ::_exit(request->value("code", 3));
      } else if (op == "exit_after_reply") {
        channel.reply({{"ok", true}});
        ::_exit(request->value("code", 5));
      } else if (op == "hang") {
        hang();
      } else if (op == "garbage") {
        const char text[] = "not json\n";
        if (::write(reply_fd, text, sizeof text - 1) < 0) return 4;
      } else if (op == "spawn_and_hang") {
        pid_t child = ::fork();
        if (child < 0) return 5;
        if (child == 0) hang();
        channel.reply({{"grandchild", child}});
        hang();
      } else if (op == "close_reply") {
        ::close(reply_fd);  // breaks the protocol but stays alive
        hang();
      } else if (op == "close_stdin") {
        ::close(STDIN_FILENO);  // the next request hits a closed pipe (EPIPE in the tuner)
        channel.reply({{"ok", true}});
        hang();
      } else if (op == "print") {
        std::cout << request->value("out", "") << std::endl;
        std::cerr << request->value("err", "") << std::endl;
        channel.reply({{"printed", true}});
      } else {
        channel.reply({{"error", "unknown op '" + op + "'"}});
      }
    }
  } catch (const ktune::Error& e) {
    std::cerr << "fake_worker: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
