// gpuvet fleet as a user runs it: report's formats and exit statuses, collect through a stand-in
// srun (tests/fleet/fake-srun) that fails the ways a real one does, the node's own answer, and the
// HTML page in a real browser. tests/fleet/slurm_test.sh runs collect through a real Slurm.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "browser_support.hpp"
#include "cli_support.hpp"
#include "core/text.hpp"
#include "fleet/collect_record.hpp"
#include "fleet/fleet.hpp"
#include "fleet/wire.hpp"
#include "report/render_fleet.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::fleet {
namespace {

using testing::run_gpuvet;
using testing::TempDir;

const std::string kFleet = std::string(GPUVET_FLEET_FIXTURES);

std::string copy_of(const std::string& file) {
  return *paths::read_file(kFleet + "/nodes/" + file, 1 << 20);
}

TEST(FleetCli, ReportExitsOneForABrokenNodeZeroForAReadyFleetTwoForNoSnapshots) {
  const auto broken = run_gpuvet("fleet report " + kFleet + "/nodes");
  EXPECT_EQ(broken.status, 1) << broken.err;
  EXPECT_NE(broken.out.find("22 nodes: 17 ready"), std::string::npos) << broken.out;

  TempDir ready;
  ready.file("a.json", copy_of("gpu02.json"));
  ready.file("b.json.gz", copy_of("gpu03.json.gz"));
  const auto fine = run_gpuvet("fleet report " + ready.path() + " --json");
  EXPECT_EQ(fine.status, 0) << fine.err;
  const auto document = nlohmann::json::parse(fine.out);
  EXPECT_EQ(document["schema"], "gpuvet.fleet/1");
  EXPECT_EQ(document["nodes"].size(), 2u);
  EXPECT_TRUE(document["drift"].empty());

  TempDir empty;
  for (const std::string& dir : {empty.path(), empty.path() + "/missing"}) {
    const auto refused = run_gpuvet("fleet report " + dir);
    EXPECT_EQ(refused.status, 2) << dir;
    EXPECT_EQ(testing::line_count(refused.err), 1u) << refused.err;
    EXPECT_NE(refused.err.find("gpuvet: "), std::string::npos) << refused.err;
  }
  EXPECT_EQ(run_gpuvet("fleet report").status, 2);
  EXPECT_EQ(run_gpuvet("fleet").status, 2);
}

TEST(FleetCli, MarkdownAndHtmlAndChinese) {
  TempDir out;
  const auto md = run_gpuvet("fleet report " + kFleet + "/nodes --format md --html " + out.path() +
                             "/fleet.html");
  EXPECT_EQ(md.status, 1) << md.err;
  EXPECT_EQ(md.out.rfind("# gpuvet fleet report", 0), 0u) << md.out;
  const auto page = paths::read_file(out.path() + "/fleet.html", 1 << 22);
  ASSERT_TRUE(page);
  EXPECT_NE(page->find("gpu07"), std::string::npos);
  const auto zh = run_gpuvet("fleet report " + kFleet + "/nodes --lang zh");
  EXPECT_NE(zh.out.find("共 22 个节点"), std::string::npos) << zh.out;
}

// ---------------------------------------------------------------- collect, through a stand-in

struct FakeSrun {
  TempDir dir;
  std::string bin;
  std::string args_file;
  FakeSrun() {
    bin = dir.path() + "/bin";
    std::filesystem::create_directories(bin);
    std::filesystem::copy_file(kFleet + "/fake-srun", bin + "/srun");
    args_file = dir.path() + "/srun-args";
  }
  std::string env(const std::string& nodes, const std::string& extra = "",
                  const std::string& nodelist = "n[1-3]") const {
    return "PATH=" + bin + ":/usr/bin:/bin FAKE_SRUN_NODES='" + nodes + "' FAKE_SRUN_NODELIST='" +
           nodelist + "' FAKE_SRUN_ARGS_FILE=" + args_file + " " + extra;
  }
};

TEST(FleetCollect, ANodeThatNeverAnswersIsRecordedAndReported) {
  FakeSrun srun;
  TempDir out;
  const auto run = run_gpuvet(
      "fleet collect --slurm --stage always -o " + out.path() + " -- --nodes=3 --partition=gpu",
      srun.env("n1 n2 n3", "FAKE_SRUN_SILENT=n3"));
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("2 of 3 nodes collected"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("n3: no_answer"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Exited with exit code 1"), std::string::npos) << run.out;

  const auto args = text::split(*paths::read_file(srun.args_file, 1 << 16), '\n');
  EXPECT_NE(std::find(args.begin(), args.end(), "--ntasks-per-node=1"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--nodes=3"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--partition=gpu"), args.end());
  const auto bcast = std::find_if(args.begin(), args.end(), [](const std::string& a) {
    return a.starts_with("--bcast=/tmp/gpuvet-fleet-");
  });
  ASSERT_NE(bcast, args.end());
  // Each staged copy removed itself once its node had answered.
  const std::string staged = bcast->substr(std::string("--bcast=").size());
  EXPECT_FALSE(std::filesystem::exists(staged + "-n1"));
  EXPECT_FALSE(std::filesystem::exists(staged + "-n2"));

  const auto record = read_collect_record(out.path() + "/collect.json");
  ASSERT_TRUE(record) << record.error().message;
  ASSERT_EQ(record->nodes.size(), 3u);
  EXPECT_EQ(record->nodes[2].node, "n3");
  EXPECT_EQ(record->nodes[2].status, CollectStatus::no_answer);
  EXPECT_EQ(record->exit_code, 1);
  // This one machine answered as both n1 and n2: two files, the second named after its node.
  std::vector<std::string> files;
  for (const auto& node : record->nodes) {
    if (node.file) files.push_back(*node.file);
  }
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0], files[1]);
  for (const auto& file : files) {
    const auto snapshot = sys::load_snapshot_file(out.path() + "/" + file);
    ASSERT_TRUE(snapshot) << snapshot.error().message;
    EXPECT_TRUE(snapshot->host.hostname);
  }

  const auto report = run_gpuvet("fleet report " + out.path() + " --json");
  EXPECT_EQ(report.status, 1);
  const auto document = nlohmann::json::parse(report.out);
  ASSERT_EQ(document["nodes"].size(), 3u);
  const auto n3 = std::find_if(document["nodes"].begin(), document["nodes"].end(),
                               [](const auto& n) { return n["host"] == "n3"; });
  ASSERT_NE(n3, document["nodes"].end());
  EXPECT_EQ((*n3)["verdict"], "unreadable");
  EXPECT_EQ((*n3)["collected"], false);
}

TEST(FleetCollect, AHungNodeTimesOutAtTheDeadlineAndTheOthersAreKept) {
  FakeSrun srun;
  TempDir out;
  // The deadline leaves the healthy node a wide margin: under AddressSanitizer on a loaded
  // 2-core machine its snapshot took more than 4 s once.
  const auto run = run_gpuvet("fleet collect --slurm --stage never --deadline 15 -o " + out.path(),
                              srun.env("n1 n2", "FAKE_SRUN_HANG=n2"));
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  const auto record = read_collect_record(out.path() + "/collect.json");
  ASSERT_TRUE(record) << record.error().message;
  ASSERT_EQ(record->nodes.size(), 3u);
  EXPECT_EQ(record->nodes[0].status, CollectStatus::ok) << record->nodes[0].reason;
  EXPECT_EQ(record->nodes[1].node, "n2");
  EXPECT_EQ(record->nodes[1].status, CollectStatus::timed_out);
  EXPECT_NE(record->nodes[1].reason.find("deadline (15 s)"), std::string::npos)
      << record->nodes[1].reason;
  EXPECT_EQ(record->nodes[2].status, CollectStatus::no_answer);
  EXPECT_FALSE(record->exit_code);
}

// CONTRACTS.md: `fleet collect --slurm [-- SRUN_ARGS…] -o DIR`.
TEST(FleetCollect, OutputAfterTheSrunArgumentsIsGpuvets) {
  FakeSrun srun;
  TempDir out;
  const auto run = run_gpuvet("fleet collect --slurm -- --nodes=1 --partition=gpu -o " + out.path(),
                              srun.env("n1", "", "n1"));
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_TRUE(std::filesystem::exists(out.path() + "/collect.json"));
  const auto args = text::split(*paths::read_file(srun.args_file, 1 << 16), '\n');
  EXPECT_EQ(std::find(args.begin(), args.end(), "-o"), args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--partition=gpu"), args.end());
  const auto twice =
      run_gpuvet("fleet collect --slurm -o " + out.path() + " -- -o " + out.path(), srun.env("n1"));
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("twice"), std::string::npos) << twice.err;
}

TEST(FleetCollect, WithoutSrunOrAnEngineItIsAUsageError) {
  TempDir out;
  const auto no_srun = run_gpuvet("fleet collect --slurm -o " + out.path(), "PATH=" + out.path());
  EXPECT_EQ(no_srun.status, 2);
  EXPECT_NE(no_srun.err.find("no srun on PATH"), std::string::npos) << no_srun.err;
  const auto no_engine = run_gpuvet("fleet collect -o " + out.path());
  EXPECT_EQ(no_engine.status, 2);
  EXPECT_NE(no_engine.err.find("--slurm"), std::string::npos) << no_engine.err;
  EXPECT_EQ(run_gpuvet("fleet collect --slurm").status, 2);  // no -o
}

TEST(FleetNode, TheNodesAnswerIsThisMachinesSnapshotOnTheWire) {
  const auto run =
      run_gpuvet("fleet node --timeout 60", "SLURMD_NODENAME=n7 SLURM_JOB_NODELIST='n[7-8]'");
  EXPECT_EQ(run.status, 0) << run.err;
  WireReader reader;
  for (const auto& line : text::split(run.out, '\n'))
    reader.feed_line(line);
  const std::vector<WireNode> nodes = reader.nodes();
  ASSERT_EQ(nodes.size(), 1u);
  const WireNode& node = nodes[0];
  EXPECT_EQ(node.node, "n7");
  EXPECT_EQ(node.nodelist, "n[7-8]");
  ASSERT_EQ(node.status, CollectStatus::ok) << node.reason;
  const auto snapshot = sys::parse_snapshot(node.snapshot);
  ASSERT_TRUE(snapshot) << snapshot.error().message;
  EXPECT_TRUE(snapshot->host.hostname);
  EXPECT_TRUE(reader.other_lines().empty());
}

// ---------------------------------------------------------------- the page, in Chromium

class FleetHtmlBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    browser_ = testing::find_chromium();
    if (browser_.empty()) GTEST_SKIP() << "no chromium or chromium-browser on PATH";
    auto read = report_dir(kFleet + "/nodes", testing::embedded_kb(), testing::messages());
    ASSERT_TRUE(read);
    page_ = report::render_fleet_html(*read, testing::messages());
  }
  // The hosts of the node table, top to bottom, once the page's script sorted it.
  std::vector<std::string> hosts_sorted_by(const std::string& fragment) {
    const std::string dom = testing::dump_dom(browser_, dir_, "sorted", page_, fragment);
    std::vector<std::string> hosts;
    const std::string marker = "<tr class=\"v-";
    for (size_t at = dom.find(marker); at != std::string::npos; at = dom.find(marker, at + 1)) {
      const size_t cell = dom.find("<td>", at) + 4;
      hosts.push_back(dom.substr(cell, dom.find("</td>", cell) - cell));
    }
    return hosts;
  }
  std::string browser_;
  std::string page_;
  TempDir dir_;
};

TEST_F(FleetHtmlBrowser, RendersWithoutConsoleMessages) {
  const testing::BrowserRun run = testing::open_in_browser(browser_, dir_, "fleet", page_);
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_GT(run.screenshot_bytes, 40'000u) << "tables, not a blank page";
  const auto messages = testing::console_messages(run.log);
  EXPECT_TRUE(messages.empty()) << text::join(messages, "\n");
}

TEST_F(FleetHtmlBrowser, ItsScriptSortsTheNodeTableByAnyColumn) {
  const auto unsorted = hosts_sorted_by("");
  ASSERT_EQ(unsorted.size(), 22u);
  EXPECT_EQ(unsorted.front(), "gpu01");
  const auto worst_first = hosts_sorted_by("#sort=verdict");
  ASSERT_EQ(worst_first.size(), 22u);
  EXPECT_EQ(std::vector<std::string>(worst_first.begin(), worst_first.begin() + 5),
            (std::vector<std::string>{"gpu22", "gpu07", "gpu12", "gpu18", "gpu15"}));
  const auto by_driver = hosts_sorted_by("#sort=driver");
  EXPECT_EQ(by_driver.at(0), "gpu22");  // no driver: an empty cell sorts first
  EXPECT_EQ(by_driver.at(1), "gpu07");  // 470 before 535
  EXPECT_EQ(hosts_sorted_by("#sort=host-desc").front(), "gpu22");
}

}  // namespace
}  // namespace gpuvet::fleet
