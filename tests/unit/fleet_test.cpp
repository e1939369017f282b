// The fleet: the wire a snapshot travels on, Slurm host lists, drift and groups over a fleet of
// 22 scenario nodes (tests/fleet/make_fleet.py), and the report in every format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base64.hpp"
#include "core/gzip.hpp"
#include "core/hostlist.hpp"
#include "core/text.hpp"
#include "fleet/collect_record.hpp"
#include "fleet/fleet.hpp"
#include "fleet/wire.hpp"
#include "report/render_fleet.hpp"
#include "test_support.hpp"

namespace gpuvet::fleet {
namespace {

using testing::embedded_kb;
using testing::messages;
using testing::TempDir;

const std::string kFleetNodes = std::string(GPUVET_FLEET_FIXTURES) + "/nodes";

// ---------------------------------------------------------------- base64

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    bytes += static_cast<char>(i * 7 % 256);
    const std::string encoded = base64::encode(bytes);
    EXPECT_EQ(encoded.size() % 4, 0u);
    const auto decoded = base64::decode(encoded);
    ASSERT_TRUE(decoded) << i;
    EXPECT_EQ(*decoded, bytes);
  }
}

TEST(Base64, KnownVectorsFromRfc4648) {
  EXPECT_EQ(base64::encode(""), "");
  EXPECT_EQ(base64::encode("f"), "Zg==");
  EXPECT_EQ(base64::encode("fo"), "Zm8=");
  EXPECT_EQ(base64::encode("foo"), "Zm9v");
  EXPECT_EQ(base64::encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, RefusesWhatIsNotCanonical) {
  for (const char* bad :
       {"Zg=", "Zg", "Z===", "Zm9v\n", "Zh==", "Zm9=", "Zg==Zg==", "Zm 9", "=Zg="}) {
    EXPECT_FALSE(base64::decode(bad)) << bad;
  }
}

// ---------------------------------------------------------------- host lists

TEST(Hostlist, ExpandsAsSlurmWritesThem) {
  const auto names = hostlist::expand("gpu[01-03,07],login1,rack[1-2]-n[8-9]");
  ASSERT_TRUE(names) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu07", "login1",
                                              "rack1-n8", "rack1-n9", "rack2-n8", "rack2-n9"}));
  EXPECT_EQ(*hostlist::expand("localhost"), std::vector<std::string>{"localhost"});
  EXPECT_EQ(*hostlist::expand("n[9-11]"), (std::vector<std::string>{"n9", "n10", "n11"}));
  EXPECT_TRUE(hostlist::expand("")->empty());
}

TEST(Hostlist, CompressesWhatItExpandsBack) {
  EXPECT_EQ(hostlist::compress({"gpu07", "gpu01", "gpu03", "gpu02", "login1", "gpu02"}),
            "gpu[01-03,07],login1");
  EXPECT_EQ(hostlist::compress({"n9", "n10", "n11"}), "n9,n[10-11]");
  EXPECT_EQ(hostlist::compress({"vm", "a[1]", "42"}), "42,a[1],vm");
  EXPECT_EQ(hostlist::compress({}), "");
  const std::vector<std::string> names = {"rack2-n08", "rack1-n09", "rack1-n08", "gpu001", "gpu1",
                                          "gpu002",    "login",     "x99",       "x100"};
  auto back = hostlist::expand(hostlist::compress(names));
  ASSERT_TRUE(back) << back.error().message;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::sort(back->begin(), back->end());
  EXPECT_EQ(*back, sorted);
}

TEST(Hostlist, RefusesBrokenOrHugeLists) {
  for (const char* bad : {"gpu[01-03", "gpu01-03]", "gpu[a-b]", "gpu[5-1]", "gpu[]", "n[1-999999]",
                          "a[1-999]b[1-999]"}) {
    const auto names = hostlist::expand(bad);
    EXPECT_FALSE(names) << bad;
    if (!names) {
      EXPECT_NE(names.error().message.find(bad), std::string::npos);
    }
  }
}

// ---------------------------------------------------------------- the wire

std::string big_gzip() {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += std::to_string(i * 7919 % 10007) + ",";
  return *gzip::compress(text);
}

TEST(Wire, InterleavedNodesWithLabelsArriveWhole) {
  const std::string first = big_gzip();
  const std::string second = *gzip::compress("second node");
  const auto a = wire_lines("gpu01", "gpu[01-03]", first);
  const auto b = wire_lines("gpu02", "gpu[01-03]", second);
  const auto c = wire_failure("gpu03", "gpu[01-03]", CollectStatus::timed_out, "took\ntoo long");
  ASSERT_GT(a.size(), 10u);
  for (const auto& line : a)
    EXPECT_LT(line.size(), 1024u);
  WireReader reader;
  reader.feed_line("srun: job 12 queued and waiting for resources");
  // Lines of three nodes interleaved, srun --label style prefixes on some, CRLF on others.
  for (size_t i = 0; i < std::max({a.size(), b.size(), c.size()}); ++i) {
    if (i < a.size()) reader.feed_line("0: " + a[i]);
    if (i < b.size()) reader.feed_line(b[i] + "\r");
    if (i < c.size()) reader.feed_line(c[i]);
  }
  const auto nodes = reader.nodes();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].node, "gpu01");
  EXPECT_EQ(nodes[0].status, CollectStatus::ok);
  EXPECT_EQ(nodes[0].snapshot, first);
  EXPECT_EQ(nodes[0].nodelist, "gpu[01-03]");
  EXPECT_EQ(nodes[1].snapshot, second);
  EXPECT_EQ(nodes[2].status, CollectStatus::timed_out);
  EXPECT_EQ(nodes[2].reason, "took too long");
  EXPECT_EQ(reader.other_lines(),
            std::vector<std::string>{"srun: job 12 queued and waiting for resources"});
}

TEST(Wire, ALostRepeatedOrChangedLineIsAFailureNotABadSnapshot) {
  const auto lines = wire_lines("n1", "n1", big_gzip());
  const auto feed = [&](auto edit) {
    std::vector<std::string> copy = lines;
    edit(copy);
    WireReader reader;
    for (const auto& line : copy)
      reader.feed_line(line);
    return reader.nodes().at(0);
  };
  const auto lost = feed([](auto& l) { l.erase(l.begin() + 3); });
  EXPECT_EQ(lost.status, CollectStatus::failed);
  EXPECT_NE(lost.reason.find("incomplete"), std::string::npos);
  const auto repeated = feed([](auto& l) { l.insert(l.begin() + 3, l[3]); });
  EXPECT_EQ(repeated.status, CollectStatus::failed);
  const auto changed =
      feed([](auto& l) { l[4][l[4].size() - 5] = l[4][l[4].size() - 5] == 'A' ? 'B' : 'A'; });
  EXPECT_EQ(changed.status, CollectStatus::failed);
  EXPECT_NE(changed.reason.find("damaged"), std::string::npos);
  const auto unfinished = feed([](auto& l) { l.pop_back(); });
  EXPECT_FALSE(unfinished.status);
  EXPECT_TRUE(unfinished.snapshot.empty());
}

// ---------------------------------------------------------------- the collector's record

TEST(CollectRecord, RoundTripsAndRefusesWhatIsNotOne) {
  TempDir dir;
  CollectRecord record;
  record.collected_at = "2026-12-02T10:00:00Z";
  record.engine = "slurm";
  record.command = {"srun", "--nodes=2", "gpuvet"};
  record.exit_code = 1;
  record.messages = "srun: error: node gpu02 not responding";
  record.nodes = {{"gpu01", CollectStatus::ok, "gpu01.example", "gpu01.example.json.gz", ""},
                  {"gpu02", CollectStatus::no_answer, std::nullopt, std::nullopt, "no answer"}};
  const std::string path = dir.file("collect.json", serialize_collect_record(record));
  const auto read = read_collect_record(path);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->nodes.size(), 2u);
  EXPECT_EQ(read->nodes[1].status, CollectStatus::no_answer);
  EXPECT_EQ(read->nodes[0].file, "gpu01.example.json.gz");
  EXPECT_EQ(read->exit_code, 1);
  for (const char* bad :
       {"", "{}", "[1]", "{\"schema\":\"gpuvet.fleet-collect/1\"}",
        "{\"schema\":\"gpuvet.fleet-collect/1\",\"nodes\":[{\"node\":\"a\",\"status\":\"odd\"}]}",
        "\x1f\x8b binary"}) {
    const auto refused = read_collect_record(dir.file("bad.json", bad));
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("bad.json"), std::string::npos)
        << refused.error().message;
  }
}

// ---------------------------------------------------------------- the scenario fleet

const Report& scenario_fleet() {
  static const Report report = [] {
    auto read = report_dir(kFleetNodes, embedded_kb(), messages(), {2});
    EXPECT_TRUE(read) << (read ? "" : read.error().message);
    return read ? *read : Report{};
  }();
  return report;
}

const Node& node(const std::string& host) {
  static const Node missing;
  for (const Node& n : scenario_fleet().nodes) {
    if (n.host == host) return n;
  }
  ADD_FAILURE() << "no node " << host;
  return missing;
}

const Drift* drift(const std::string& fact) {
  for (const Drift& d : scenario_fleet().drift) {
    if (d.fact == fact) return &d;
  }
  return nullptr;
}

TEST(FleetReport, OneRowPerFileWithItsVerdictAndFirstError) {
  const Report& report = scenario_fleet();
  ASSERT_EQ(report.nodes.size(), 22u);
  EXPECT_EQ(report.ready, 17);
  EXPECT_EQ(report.warning, 1);
  EXPECT_EQ(report.error, 3);
  EXPECT_EQ(report.unreadable, 1);
  EXPECT_EQ(node("gpu01").verdict, Verdict::ready);
  EXPECT_EQ(node("gpu07").first_error, "driver.too_old");
  EXPECT_EQ(node("gpu12").first_error, "cudnn.missing");
  EXPECT_EQ(node("gpu18").first_error, "gpu.not_visible");
  EXPECT_EQ(node("gpu15").verdict, Verdict::warning);
  const Node& broken = node("gpu22");
  EXPECT_EQ(broken.verdict, Verdict::unreadable);
  ASSERT_TRUE(broken.first_error);
  EXPECT_NE(broken.first_error->find("gpu22.json.gz"), std::string::npos);
  EXPECT_NE(broken.first_error->find("truncated"), std::string::npos);
  EXPECT_EQ(node("gpu02").gpus, std::vector<std::string>{"NVIDIA GeForce RTX 3060"});
  EXPECT_EQ(node("gpu02").driver, "535.183.01");
}

TEST(FleetReport, DriftNamesTheMajorityAndEachDeliberateOutlier) {
  const auto expect_outliers =
      [](const std::string& fact, const std::string& majority,
         const std::vector<std::pair<std::string, std::string>>& outliers) {
        const Drift* d = drift(fact);
        ASSERT_NE(d, nullptr) << fact;
        EXPECT_EQ(d->majority, majority) << fact;
        EXPECT_FALSE(d->tie) << fact;
        std::vector<std::pair<std::string, std::string>> got;
        for (const Outlier& o : d->outliers)
          got.emplace_back(o.host, o.value);
        EXPECT_EQ(got, outliers) << fact;
      };
  expect_outliers("driver.version", "535.183.01", {{"gpu07", "470.82.01"}});
  expect_outliers("os.kernel", "6.5.0-41-generic", {{"gpu20", "6.8.0-45-generic"}});
  expect_outliers("cudnn.versions", "8.9.2", {{"gpu12", "none"}, {"gpu15", "none"}});
  expect_outliers("env.CUDA_VISIBLE_DEVICES", "unset", {{"gpu18", ""}});
  expect_outliers("gpu.persistence_mode", "enabled", {{"gpu10", "disabled"}});
  const Drift* torch = drift("framework /home/dev/venvs/torch");
  ASSERT_NE(torch, nullptr);
  ASSERT_EQ(torch->outliers.size(), 2u);
  EXPECT_EQ(torch->outliers[1].host, "gpu15");
  EXPECT_NE(torch->outliers[1].value.find("CPU only"), std::string::npos);
  // What every node agrees on is not drift; the unreadable node is in no comparison.
  EXPECT_EQ(drift("gpu.model"), nullptr);
  EXPECT_EQ(drift("gpu.count"), nullptr);
  EXPECT_EQ(drift("gpu.ecc"), nullptr);
  for (const Drift& d : scenario_fleet().drift) {
    EXPECT_EQ(d.majority_count + static_cast<int>(d.outliers.size()), 21) << d.fact;
    for (const Outlier& o : d.outliers)
      EXPECT_NE(o.host, "gpu22");
  }
}

TEST(FleetReport, GroupsNodesWhoseFactsAreAllTheSame) {
  const auto& groups = scenario_fleet().groups;
  ASSERT_EQ(groups.size(), 7u);
  EXPECT_EQ(groups[0].hosts.size(), 15u);
  for (const char* different : {"gpu07", "gpu10", "gpu12", "gpu15", "gpu18", "gpu20", "gpu22"}) {
    EXPECT_EQ(std::count(groups[0].hosts.begin(), groups[0].hosts.end(), different), 0)
        << different;
  }
  for (size_t i = 1; i < groups.size(); ++i)
    EXPECT_EQ(groups[i].hosts.size(), 1u);
  // The key is a digest of the facts: stable from run to run, different between groups.
  EXPECT_EQ(groups[0].key.size(), 12u);
  EXPECT_NE(groups[0].key, groups[1].key);
  const auto again = report_dir(kFleetNodes, embedded_kb(), messages(), {1});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->groups[0].key, groups[0].key);
  EXPECT_EQ(again->groups[0].hosts, groups[0].hosts);
}

TEST(FleetReport, TwoEqualHalvesAreATieNotAMajority) {
  Report report;
  for (const char* host : {"a", "b"}) {
    Node n;
    n.host = host;
    n.verdict = Verdict::ready;
    n.facts = {{"driver.version", host == std::string("a") ? "550.54.15" : "535.104.05"}};
    report.nodes.push_back(n);
  }
  compare(report);
  ASSERT_EQ(report.drift.size(), 1u);
  EXPECT_TRUE(report.drift[0].tie);
  EXPECT_EQ(report.drift[0].outliers.size(), 1u);
}

TEST(FleetReport, DirectoryErrorsAndTheCollectorsFailedNodes) {
  TempDir dir;
  const auto missing = report_dir(dir.path() + "/nope", embedded_kb(), messages());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope"), std::string::npos);
  const auto empty = report_dir(dir.path(), embedded_kb(), messages());
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no snapshot"), std::string::npos);

  dir.file("notes.txt", "not a snapshot, not read");
  dir.file("n1.json", *paths::read_file(kFleetNodes + "/gpu02.json", 1 << 20));
  CollectRecord record;
  record.nodes = {{"n1", CollectStatus::ok, "gpu02", "n1.json", ""},
                  {"n2", CollectStatus::timed_out, std::nullopt, std::nullopt,
                   "gpuvet snapshot did not finish within 120 s"}};
  dir.file(kCollectRecordName, serialize_collect_record(record));
  const auto report = report_dir(dir.path(), embedded_kb(), messages());
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->nodes.size(), 2u);
  EXPECT_EQ(report->nodes[0].host, "gpu02");
  EXPECT_EQ(report->nodes[1].host, "n2");
  EXPECT_FALSE(report->nodes[1].collected);
  EXPECT_EQ(report->nodes[1].verdict, Verdict::unreadable);
  EXPECT_NE(report->nodes[1].first_error->find("within 120 s"), std::string::npos);

  dir.file(kCollectRecordName, "{broken");
  const auto broken = report_dir(dir.path(), embedded_kb(), messages());
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("collect.json"), std::string::npos);
}

TEST(FleetReport, FileSafeHostNames) {
  EXPECT_EQ(file_safe_host("gpu01.cluster.example"), "gpu01.cluster.example");
  EXPECT_EQ(file_safe_host("../../etc/passwd"), "_.._.._etc_passwd");
  EXPECT_EQ(file_safe_host(""), "_");
  EXPECT_EQ(file_safe_host(".hidden"), "_.hidden");
  EXPECT_EQ(file_safe_host("节点1"), "______1");
}

// ---------------------------------------------------------------- renderings

TEST(FleetRender, JsonFollowsTheContract) {
  const auto document = nlohmann::json::parse(report::render_fleet_json(scenario_fleet()));
  EXPECT_EQ(document["schema"], "gpuvet.fleet/1");
  ASSERT_EQ(document["nodes"].size(), 22u);
  for (const auto& n : document["nodes"]) {
    for (const char* key : {"host", "source", "verdict", "first_error", "gpus", "driver"})
      EXPECT_TRUE(n.contains(key)) << key;
    const std::string verdict = n["verdict"];
    EXPECT_TRUE(verdict == "ready" || verdict == "error" || verdict == "warning" ||
                verdict == "unreadable");
  }
  const auto& drift = document["drift"];
  const auto driver = std::find_if(drift.begin(), drift.end(),
                                   [](const auto& d) { return d["fact"] == "driver.version"; });
  ASSERT_NE(driver, drift.end());
  EXPECT_EQ((*driver)["majority"], "535.183.01");
  EXPECT_EQ((*driver)["outliers"][0]["host"], "gpu07");
  EXPECT_EQ((*driver)["outliers"][0]["value"], "470.82.01");
  EXPECT_EQ(document["groups"][0]["hosts"].size(), 15u);
  EXPECT_TRUE(document["groups"][0]["key"].is_string());
}

TEST(FleetRender, TextPutsBrokenNodesAndDriftFirst) {
  const std::string text = report::render_fleet_text(scenario_fleet(), messages(), false);
  const size_t attention = text.find("Needs attention");
  const size_t drift = text.find("Drift");
  const size_t nodes = text.find("\nNodes");
  ASSERT_NE(attention, std::string::npos);
  EXPECT_LT(attention, drift);
  EXPECT_LT(drift, nodes);
  EXPECT_NE(text.find("gpu07: error · NVIDIA driver 470.82.01 is too old"), std::string::npos)
      << text;
  EXPECT_NE(text.find("driver.version: 535.183.01 on 20 of 21 nodes; differs on gpu07 (470.82.01)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("differs on gpu18 ((empty))"), std::string::npos) << text;
  EXPECT_NE(text.find("differs on gpu[12,15] (none)"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu[01-06,08-09,11,13-14,16-17,19,21]"), std::string::npos) << text;
}

TEST(FleetRender, ChineseHasNoEnglishSentinelsOrAsciiColonsInItsOwnWords) {
  const std::string text =
      report::render_fleet_text(scenario_fleet(), messages(kb::Lang::zh), false);
  EXPECT_NE(text.find("共 22 个节点"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu[12,15]（无）"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu10（已关闭）"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu18（（空））"), std::string::npos) << text;
  EXPECT_EQ(text.find("Needs attention"), std::string::npos);
  EXPECT_EQ(text.find(" nodes"), std::string::npos);
  EXPECT_NE(text.find("gpu07：错误"), std::string::npos) << text;
  const std::string html = report::render_fleet_html(scenario_fleet(), messages(kb::Lang::zh));
  EXPECT_NE(html.find("<html lang=\"zh-CN\">"), std::string::npos);
}

TEST(FleetRender, MarkdownTablesEscapePipes) {
  Report report;
  Node n;
  n.host = "a|b";
  n.verdict = Verdict::ready;
  n.frameworks = {"torch 2.5.1 | odd"};
  report.nodes = {n};
  compare(report);
  const std::string md = report::render_fleet_md(report, messages());
  EXPECT_NE(md.find("| a\\|b |"), std::string::npos) << md;
  EXPECT_NE(md.find("torch 2.5.1 \\| odd"), std::string::npos) << md;
  const std::string full = report::render_fleet_md(scenario_fleet(), messages());
  EXPECT_NE(full.find("| `driver.version` | 535.183.01 (20/21) | gpu07 (470.82.01) |"),
            std::string::npos)
      << full;
}

TEST(FleetRender, HtmlIsOnePageWithDriftFirstAndEverythingEscaped) {
  Report report = scenario_fleet();
  report.nodes[0].host = "<script>alert(1)</script>";
  report.nodes[0].frameworks = {"\"quoted\" & <b>"};
  const std::string html = report::render_fleet_html(report, messages());
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;quoted&quot; &amp; &lt;b&gt;"), std::string::npos);
  EXPECT_LT(html.find("id=\"drift\""), html.find("id=\"nodes\""));
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
}

}  // namespace
}  // namespace gpuvet::fleet
