#pragma once
// Every benchmark here ends with its ratio against a named baseline. This reporter prints
// Google Benchmark's console table, keeps each benchmark's median run (the run itself when there
// is a single repetition), and hands them to the benchmark's own summary at the end.
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpuvet::bench {

class MedianReporter : public benchmark::ConsoleReporter {
 public:
  explicit MedianReporter(std::function<void(const MedianReporter&)> summary)
      : summary_(std::move(summary)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& run : runs) {
      if (run.error_occurred) continue;
      std::string key = run.run_name.function_name;
      if (!run.run_name.args.empty()) key += "/" + run.run_name.args;
      const bool single = run.run_type == Run::RT_Iteration && !medians_.count(key);
      if (run.aggregate_name == "median" || single) medians_.insert_or_assign(key, run);
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    summary_(*this);
  }

  // The median real time in the benchmark's unit, of "BM_Name" or "BM_Name/ARGS"; 0 when it did
  // not run.
  double time(const std::string& key) const {
    const auto it = medians_.find(key);
    return it == medians_.end() ? 0 : it->second.GetAdjustedRealTime();
  }
  // A counter of that median run; 0 when absent.
  double counter(const std::string& key, const std::string& name) const {
    const auto it = medians_.find(key);
    if (it == medians_.end()) return 0;
    const auto found = it->second.counters.find(name);
    return found == it->second.counters.end() ? 0 : found->second.value;
  }

 private:
  std::function<void(const MedianReporter&)> summary_;
  std::map<std::string, Run> medians_;
};

}  // namespace gpuvet::bench
