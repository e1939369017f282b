// The Xid errors the NVIDIA kernel driver logs, as data/nvidia_xid_errors.csv lists them from
// NVIDIA's Xid catalog, against what `explain` makes of an Xid line alone: the card's faults are
// hardware, the program's own faults are not blamed on the setup, and the rest are named without a
// cause the catalog does not give.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "explain_support.hpp"
#include "test_support.hpp"

namespace gpuvet::explain {
namespace {

// The rule's name for a row's cause: what names the cause first among its signatures.
std::string rule_of(const std::string& cause) {
  if (cause == "device.hardware_error") return "nvrm_xid_hardware";
  if (cause == "program") return "nvrm_xid_program";
  return "nvrm_xid_unsettled";
}

std::string id_of(const std::string& cause) {
  return cause == "device.hardware_error" ? cause : "other";
}

// The two ways an Xid reaches a user: the kernel's line (dmesg, journalctl -k) and the Kubernetes
// device plugin's event.
std::vector<std::string> xid_forms(const std::string& xid) {
  return {"[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): " + xid + ", pid=4242, name=python3\n",
          "XidCriticalError: Xid=" + xid +
              " on Device=GPU-5ca89547-0a71, the device will go "
              "unhealthy.\n"};
}

Cause first_of(const std::vector<Cause>& causes) {
  EXPECT_FALSE(causes.empty());
  return causes.empty() ? Cause{} : causes.front();
}

TEST(XidErrors, TheCatalogListsEveryCodeOnceWithACauseGpuvetKnows) {
  const kb::Table& t = testing::kb_table("nvidia_xid_errors");
  ASSERT_EQ(t.size(), 172u);
  std::set<std::string> taxonomy;
  const kb::Table& ids = testing::kb_table("taxonomy");
  for (size_t row = 0; row < ids.size(); ++row)
    taxonomy.insert(ids.cell(row, "id"));
  for (size_t row = 0; row < t.size(); ++row) {
    EXPECT_EQ(t.cell(row, "xid"), std::to_string(row + 1));
    const std::string& cause = t.cell(row, "cause");
    EXPECT_TRUE(cause.empty() || cause == "program" || taxonomy.contains(cause)) << cause;
    EXPECT_FALSE(t.cell(row, "mnemonic").empty()) << row;
    const std::string& action = t.cell(row, "immediate_action");
    if (!action.empty()) {
      EXPECT_TRUE(testing::messages().has("explain.xid_action." + action)) << action;
    }
  }
}

TEST(XidErrors, EveryXidIsExplainedAsItsCatalogRowSays) {
  const kb::Table& t = testing::kb_table("nvidia_xid_errors");
  for (size_t row = 0; row < t.size(); ++row) {
    const std::string& cause = t.cell(row, "cause");
    for (const std::string& log : xid_forms(t.cell(row, "xid"))) {
      const Cause first = first_of(testing::explain_by_signatures(log));
      EXPECT_EQ(first.id, id_of(cause)) << log;
      ASSERT_FALSE(first.signatures.empty()) << log;
      EXPECT_EQ(first.signatures.front(), rule_of(cause)) << log;
      EXPECT_EQ(first.captures.at("status"), t.cell(row, "xid")) << log;
      EXPECT_NE(first.why.find(t.cell(row, "mnemonic")), std::string::npos) << first.why;
    }
  }
}

TEST(XidErrors, ACodeTheCatalogLacksIsNamedWithoutACause) {
  for (const std::string& log : xid_forms("999")) {
    const Cause first = first_of(testing::explain_by_signatures(log));
    EXPECT_EQ(first.id, "other") << log;
    ASSERT_FALSE(first.signatures.empty());
    EXPECT_EQ(first.signatures.front(), "nvrm_xid_unlisted");
    EXPECT_NE(first.why.find("Xid 999"), std::string::npos) << first.why;
  }
}

// The card's fault explains what the programs on it reported: of several Xids, a hardware one
// names the cause whatever the order.
TEST(XidErrors, AHardwareXidOutweighsTheProgramsFaultsAroundIt) {
  const std::string log =
      "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception: ESR 0x405840=0xa0\n"
      "NVRM: Xid (PCI:0000:01:00): 43, pid=1234, Ch 00000010\n"
      "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\n"
      "NVRM: Xid (PCI:0000:01:00): 45, pid=1234, Ch 00000010\n";
  const Cause first = first_of(testing::explain_by_signatures(log));
  EXPECT_EQ(first.id, "device.hardware_error");
}

// Real lines from public threads, explained with the reported cases as `gpuvet explain` does.
TEST(XidErrors, RealXidLinesAreExplainedByTheirCode) {
  struct Case {
    std::string log;
    std::string cause;
    std::string status;
  };
  const std::vector<Case> cases = {
      // https://github.com/tinygrad/tinygrad/issues/6947
      {"[22859.081860] NVRM: Xid (PCI:0000:01:00): 31, pid=14292, name=python, Ch 00000030, intr "
       "00000000. MMU Fault: ENGINE HOST0 HUBCLIENT_ESC faulted @ 0x10_00200000. Fault is of type "
       "FAULT_PDE ACCESS_TYPE_VIRT_READ\n",
       "other", "31"},
      // https://github.com/NVIDIA/open-gpu-kernel-modules/issues/962
      {"kernel: NVRM: GPU at PCI:0000:01:00: GPU-d4ccf738-605f-2bbe-3fb5-7ff781421542\n"
       "kernel: NVRM: GPU Board Serial Number: 0\n"
       "kernel: NVRM: Xid (PCI:0000:01:00): 109, pid=15349, name=Main, channel 0x00000018, "
       "errorString CTX SWITCH TIMEOUT, Info 0x5c02a\n",
       "other", "109"},
      // NVLink 5 link errors on a B200 (the corpus' case AE016)
      {"kernel: NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)\n"
       "kernel: NVRM: Xid (PCI:...): 137, RLW_RXPIPE interrupt hit on link 11 on GPU0: PRIV "
       "Error\n",
       "device.hardware_error", "145"},
  };
  for (const Case& c : cases) {
    const Cause first = first_of(testing::explain_text(c.log));
    EXPECT_EQ(first.id, c.cause) << c.log;
    EXPECT_FALSE(first.similar) << c.log;
    EXPECT_EQ(first.captures.at("status"), c.status) << c.log;
  }
}

// A line that says what failed in words keeps that reading: the rule leaves it alone.
TEST(XidErrors, AnXidLineThatSaysTheGpuFellOffTheBusStaysHardware) {
  const Cause first = first_of(testing::explain_by_signatures(
      "NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"));
  EXPECT_EQ(first.id, "device.hardware_error");
  EXPECT_FALSE(first.alternative);
  ASSERT_FALSE(first.signatures.empty());
  EXPECT_NE(first.signatures.front(), "nvrm_xid_hardware");
}

// A flood of one program's Xid 13 does not hide the card's Xid 48 after it: every code the Xid
// lines name counts, not only the first lines kept as evidence.
TEST(XidErrors, AHardwareXidAfterAFloodOfOthersStillNamesTheCause) {
  std::string log;
  for (int i = 0; i < 12; ++i)
    log += "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception: ESR 0x405840=0xa0\n";
  log +=
      "NVRM: Xid (PCI:0000:01:00): 48, An uncorrectable double bit error (DBE) has been "
      "detected on GPU in the framebuffer at partition 6\n";
  const Cause first = first_of(testing::explain_by_signatures(log));
  EXPECT_EQ(first.id, "device.hardware_error");
  EXPECT_EQ(first.captures.at("status"), "48");
}

// Xid 45 (the cleanup after an aborted program) and 154 (a recovery action) follow another Xid,
// as NVIDIA's catalog says: the fault they follow names the cause.
TEST(XidErrors, AFollowOnXidGivesWayToTheXidItFollows) {
  const Cause first = first_of(testing::explain_by_signatures(
      "NVRM: Xid (PCI:0000:01:00): 31, pid=1234, name=python, Ch 00000008, MMU Fault\n"
      "NVRM: Xid (PCI:0000:01:00): 45, pid=1234, Ch 00000008\n"
      "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 "
      "(GPU Reset Required)\n"));
  EXPECT_EQ(first.id, "other");
  ASSERT_FALSE(first.signatures.empty());
  EXPECT_EQ(first.signatures.front(), "nvrm_xid_program");
  EXPECT_EQ(first.captures.at("status"), "31");
}

// The code as the driver or a paste writes it: no space after the colon, leading zeros.
TEST(XidErrors, TheCodeIsReadHoweverItIsSpaced) {
  const Cause tight =
      first_of(testing::explain_by_signatures("NVRM: Xid (PCI:0000:01:00):13, Graphics\n"));
  EXPECT_EQ(tight.id, "other");
  EXPECT_EQ(tight.captures.at("status"), "13");
  const Cause padded = first_of(testing::explain_by_signatures("XidCriticalError: Xid=0079\n"));
  EXPECT_EQ(padded.id, "device.hardware_error");
  EXPECT_EQ(padded.captures.at("status"), "79");
}

}  // namespace
}  // namespace gpuvet::explain
