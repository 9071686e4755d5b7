// The one way the project includes asio. Its configuration comes from
// compile definitions set on tsocheck_jsonrpc (and so on every target that
// links it): ASIO_STANDALONE, and ASIO_DISABLE_STD_ALIGNED_ALLOC so that the
// choice between aligned_alloc/free and operator new/delete never depends on
// which standard headers a translation unit happened to include before asio
// (two choices in one program free memory with the wrong function).
#pragma once

#if !defined(ASIO_STANDALONE) || !defined(ASIO_DISABLE_STD_ALIGNED_ALLOC)
#error "asio used without the project's configuration: link tsocheck_jsonrpc"
#endif

#include <asio.hpp>
