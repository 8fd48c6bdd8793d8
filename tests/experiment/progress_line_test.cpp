// The progress line of long commands (experiment/progress_line.hpp): its text and the expected
// duration of a trial from the trials before it.
#include <catch2/catch.hpp>

#include "experiment/progress_line.hpp"

TEST_CASE("progress: the expected trial time is the runlength plus the mean overhead so far") {
  wb::TrialDurationEstimate e;
  CHECK_FALSE(e.expected_s(60).has_value());  // nothing measured yet
  e.finished(60, 75);                         // SUT start, warm-up: 15 s beyond the runlength
  REQUIRE(e.expected_s(60).has_value());
  CHECK(*e.expected_s(60) == Approx(75));
  e.finished(60, 65);  // the SUT was already up
  CHECK(*e.expected_s(60) == Approx(70));
  CHECK(*e.expected_s(120) == Approx(130));  // a longer runlength keeps the overhead

  wb::TrialDurationEstimate sim;  // a virtual-clock trial takes far less than its runlength
  sim.finished(60, 0.01);
  CHECK(*sim.expected_s(60) == Approx(0.01));
  CHECK(*sim.expected_s(30) == 0);  // never negative
}

TEST_CASE("progress: the line shows sample, load, trial, elapsed/expected, total elapsed and cost") {
  wb::TrialProgress p;
  p.sample = "disks=2,threads=8";
  p.rate = 120;
  p.trial = 3;
  p.runlength_s = 60;
  p.trial_elapsed_s = 41.4;
  p.trial_expected_s = 75.2;
  p.elapsed_s = 200.6;
  p.cost_s = 150;
  CHECK(wb::format_progress(p) ==
        "disks=2,threads=8  load 120.0/s  trial 3 (60 s)  41/75 s  elapsed 201 s  cost so far 150 s");

  p.trial = 1;
  p.trial_elapsed_s = 2;
  p.trial_expected_s.reset();  // the first trial: at least its runlength
  p.runlength_s = 2.5;
  p.elapsed_s = 2;
  p.cost_s = 0;
  CHECK(wb::format_progress(p) ==
        "disks=2,threads=8  load 120.0/s  trial 1 (2.5 s)  2/2.5+ s  elapsed 2 s  cost so far 0 s");
}

TEST_CASE("progress: the line is cut to the width of the terminal so that it stays one line") {
  wb::TrialProgress p;
  p.sample = "mix=db_tp,cpus=0-1,threads=16,disks=4";
  p.rate = 250.5;
  p.runlength_s = 3;
  const std::string full = wb::format_progress(p);
  CHECK(full.size() > 40);
  CHECK(wb::format_progress(p, 40) == full.substr(0, 40));
  CHECK(wb::format_progress(p, 0) == full);
  CHECK(wb::format_progress(p, full.size()) == full);
}
