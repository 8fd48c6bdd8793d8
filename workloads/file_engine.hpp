#pragma once
// run_file_load: `wbload --protocol file --target DIR`, the engine's timeline (engine.hpp) on local
// files instead of a server. It creates the mix's [keys] count files of file_bytes in DIR
// (file_set.hpp), then one arrival thread queues operations open-loop at λ (constant or Poisson) and
// `connections` I/O threads take them in FIFO order and run a blocking pread, pwrite or stat
// (through the page cache, no fsync). Latency counts from the intended start, so a queue behind
// slow I/O shows in the percentiles (no coordinated omission); an operation still queued after
// `timeout` is dropped as a timeout, one that ran past it is a timeout when it returns.
// Internal to wb_workloads: run_load dispatches here. Failure: wb::InputError for a bad DIR.
#include "workloads/engine.hpp"

namespace wb {

LoadResult run_file_load(const LoadOptions& options);

}  // namespace wb
