// `tsocheck dap`: the Adapter (dap/adapter.h) on stdio.
#include "dap/dap_server.h"

#include <csignal>

#include "dap/adapter.h"

namespace tsocheck::dap {

int runAdapter() {
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context io;
  Adapter a(io);
  return a.run();
}

}  // namespace tsocheck::dap
