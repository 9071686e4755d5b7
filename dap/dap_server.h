// The trace-replay debugger (`tsocheck dap`): a Debug Adapter Protocol server
// over stdio (the same Content-Length framing and `jsonrpc::Transport` as the
// language server). `launch` checks a C file (on a worker thread; disconnect
// or terminate cancels it) and, for a violation, lets the client step forward
// and back through the counterexample (`Replay`, dap_replay.h).
//
// Launch arguments: program (C file, required), function (default: the first
// check with a violation), model ("sc" | "tso" | "pso"), bufferBound,
// preemptionBound (a number or "A..B"), loopBound, timeLimit (seconds),
// fenceTimeLimit (seconds; every check option of service/check_options.h),
// compileCommandsDir, stopOnEntry (default true).
//
// A stop at step i shows step i as just performed: threadId = the step's
// thread + 1, the frame of each thread is its most recent step <= i. next /
// stepIn / stepOut go to i+1, stepBack to i-1, continue to the last step (the
// violation, reason "exception"), reverseContinue to step 0. The stop's
// `description` (the badge beside the thread) is short: "step 4/19",
// "exited · step 10/19", "violation · step 19/19"; `text` has the step label.
// `threads` lists the threads spawned at or before step i (T0 always), a
// finished one named "T1 (worker) · exited".
//
// Custom request `tsocheckState` (no arguments; for editor decorations) →
//   { "step": i, "total": N,
//     "current": <trace step JSON with file, line, column, thread, event,
//                 address, value, label, memory, buffers>,
//     "next": <label of step i+1 or "— end of trace (violation)">,
//     "memory": {address: value known after step i},
//     "pending": [{"thread", "address", "value", "file", "line", "column"}],
//                 every buffered store after step i, per thread oldest first,
//                 located at the store that put it there,
//     "staleRead": null | {"thread", "address", "value", "file", "line",
//                 "column", "pendingIn": <thread>, "pendingValue",
//                 "pendingLine"}: step i loads from memory while thread
//                 pendingIn still buffers a store to that address,
//     "violation": {"kind", "message", "file", "line", "column", "thread", ...},
//     "function", "model" }
// Lines and columns in tsocheckState are 1-based whatever the client asked.
#pragma once

namespace tsocheck::dap {

// Serves until disconnect or end of input; returns 0. `terminate` cancels a
// running check and sends `terminated` (the client then disconnects).
int runAdapter();

}  // namespace tsocheck::dap
