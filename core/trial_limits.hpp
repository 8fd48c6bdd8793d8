#pragma once
// Ceilings on what one trial can be asked to do, shared by configs, workbench's flags and wbload's
// flags, so that a value one of them accepts the others can run. Header-only: wbload and refserver
// use it without linking wb_core.

namespace wb {

// Offered load, requests/s: wbload's --rate ceiling (one generator process).
inline constexpr double kMaxRate = 1e8;
// A runlength, warm-up, duration or pause, seconds (about 11.6 days): wbload's --duration ceiling.
inline constexpr double kMaxSeconds = 1e6;
// One request's timeout, seconds: wbload's --timeout ceiling.
inline constexpr double kMaxTimeoutSeconds = 3600;
// Connections and threads of one generator process (wbload's --connections and --threads).
inline constexpr int kMaxConnections = 100000;
inline constexpr int kMaxGeneratorThreads = 256;
// Trials of one load or one fixed-rate run, and loads of one search.
inline constexpr int kMaxTrialCount = 100000;

}  // namespace wb
