// Linked into the test programs that lower C in their own process (they link
// the tsocheck_frontend library): frontend::lowerFile and the service's
// checks run Clang here instead of in a worker.
#include "frontend/in_process.h"

namespace {
const bool registered = (tsocheck::frontend::lowerInThisProcess(), true);
}
