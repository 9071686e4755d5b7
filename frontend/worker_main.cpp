// `tsocheck-frontend`: the frontend worker executable (frontend/worker.h).
// The `tsocheck` command spawns it as `tsocheck-frontend __lower PID` for every
// file it lowers; it is the only executable of the product that loads
// libclang-cpp and libLLVM.
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "frontend/in_process.h"

int main(int argc, char** argv) {
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) == -1) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  if ((argc == 2 || argc == 3) && std::strcmp(argv[1], "__lower") == 0) {
    if (argc == 3) {
      // `__lower PID`: PID started this worker. The worker dies with its
      // parent process (a killed server or CLI leaves no Clang running), and
      // ends at once if PID is gone already (it died before prctl took
      // effect). PID need not be the direct parent: a wrapper script may
      // stand between them.
      char* end = nullptr;
      const long parent = std::strtol(argv[2], &end, 10);
      if (end == argv[2] || *end || parent <= 1) return 2;
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != pid_t(parent) && kill(pid_t(parent), 0) != 0 && errno == ESRCH) _exit(2);
    }
    const int rc = tsocheck::frontend::serveLowering();
    std::fflush(nullptr);
    _exit(rc);  // no static destructors: the parent only waits for the exit
  }
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("tsocheck-frontend %s\n", TSOCHECK_VERSION);
    return 0;
  }
  std::fputs("tsocheck-frontend is the C frontend worker of tsocheck; `tsocheck check` and `tsocheck lsp` start it\n"
             "as `tsocheck-frontend __lower` (a lowering request on stdin, the lowered module on stdout).\n",
             stderr);
  return 2;
}
