#include <gtest/gtest.h>

#include "probes/probes.hpp"
#include "probes/snapshot_privacy.hpp"
#include "test_support.hpp"

namespace gpuvet::probes {
namespace {

constexpr const char* kSlurmConf =
    "# slurm.conf\n"
    "ClusterName=lab\n"
    "AccountingStoragePass=s3cr3t-db-password\n"
    "nodename=DEFAULT CPUs=64 GRES=gpu:2   # lower-case names count too\n"
    "NodeName=gpu[01-04] Gres=gpu:a100:4(S:0-1),mps:400 CPUs=64\n"
    "NodeName=cpu[1-2] Gres=mps:100\n"
    "NodeName=old1 NodeHostname=legacy-node\n"
    "NodeName=head CPUs=8 Gres=\n"
    "#NodeName=gpu03 Gres=gpu:8\n"
    "PartitionName=gpu Nodes=gpu[01-04] Default=YES\n";

TEST(SlurmConf, CountsTheGpusOfAGresValue) {
  EXPECT_EQ(gres_gpu_count("gpu:a100:4"), 4);
  EXPECT_EQ(gres_gpu_count("gpu:4"), 4);
  EXPECT_EQ(gres_gpu_count("gpu"), 1);
  EXPECT_EQ(gres_gpu_count("gpu:a100"), 1);
  EXPECT_EQ(gres_gpu_count("gpu:a100:2(S:0,1),gpu:v100:2,mps:100"), 4);
  EXPECT_EQ(gres_gpu_count("GPU:tesla:8"), 8);
  EXPECT_EQ(gres_gpu_count("mps:100"), std::nullopt);
  EXPECT_EQ(gres_gpu_count(""), std::nullopt);
  EXPECT_EQ(gres_gpu_count("gpu:a100:4K"), std::nullopt);
  EXPECT_EQ(gres_gpu_count("gpu:a100:-1"), std::nullopt);
}

TEST(SlurmConf, FindsTheNodeLineOfThisHost) {
  const auto gpu03 = slurm_node_config(kSlurmConf, "gpu03.lab.example");
  EXPECT_EQ(gpu03.node, "gpu03");
  EXPECT_EQ(gpu03.gpus, 4);  // the commented-out line counts for nothing
  // A line without Gres= takes NodeName=DEFAULT's; one whose Gres= has no gpu has none.
  const auto old = slurm_node_config(kSlurmConf, "legacy-node");
  EXPECT_EQ(old.node, "legacy-node");
  EXPECT_EQ(old.gpus, 2);
  EXPECT_EQ(slurm_node_config(kSlurmConf, "cpu2").gpus, std::nullopt);
  EXPECT_EQ(slurm_node_config(kSlurmConf, "head").node, "head");
  EXPECT_EQ(slurm_node_config(kSlurmConf, "head").gpus, std::nullopt);
  // A host no line names is no node of this cluster (a workstation with the client installed).
  EXPECT_EQ(slurm_node_config(kSlurmConf, "laptop").node, std::nullopt);
  EXPECT_EQ(slurm_node_config(kSlurmConf, "").node, std::nullopt);
  // A broken host list names nothing, and stops nothing.
  EXPECT_EQ(
      slurm_node_config("NodeName=gpu[04-01 Gres=gpu:4\nNodeName=gpu9 Gres=gpu:1\n", "gpu9").gpus,
      1);
}

TEST(GresConf, TakesTheLinesOfThisNode) {
  constexpr const char* gres =
      "AutoDetect=nvml\n"
      "NodeName=gpu[01-02] Name=gpu Type=a100 File=/dev/nvidia[0-3] Cores=0-31\n"
      "NodeName=gpu03 AutoDetect=off\n"
      "nodename=gpu03 name=GPU type=v100 file=/dev/nvidia0,/dev/nvidia2\n"
      "NodeName=gpu03 Name=mps Count=200 File=/dev/nvidia0\n"
      "# Name=gpu File=/dev/nvidia9\n";
  const auto gpu01 = gres_node_config(gres, "gpu01.lab.example");
  EXPECT_EQ(gpu01.autodetect, "nvml");
  EXPECT_EQ(gpu01.gpu_files, (std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia1",
                                                       "/dev/nvidia2", "/dev/nvidia3"}));
  const auto gpu03 = gres_node_config(gres, "gpu03");
  EXPECT_EQ(gpu03.autodetect, "off");  // its own line outranks the file-wide one
  EXPECT_EQ(gpu03.gpu_files, (std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia2"}));
  const auto other = gres_node_config(gres, "gpu09");
  EXPECT_EQ(other.autodetect, "nvml");
  EXPECT_TRUE(other.gpu_files.empty());
  // A File= no host-list rule expands is kept as written: slurmd cannot open it either.
  EXPECT_EQ(gres_node_config("Name=gpu File=/dev/nvidia[3-1]\n", "n1").gpu_files,
            (std::vector<std::string>{"/dev/nvidia[3-1]"}));
}

TEST(SlurmProbe, ReadsTheConfBesideSlurmConfAndWhatIsMissing) {
  auto snapshot = testing::linux_snapshot(
      {{"host", {{"hostname", "gpu02"}}},
       {"env", {{"SLURM_CONF", "/opt/slurm/etc/slurm.conf"}}},
       {"files",
        {{"/opt/slurm/etc/slurm.conf", {{"text", kSlurmConf}}},
         {"/opt/slurm/etc/gres.conf", {{"text", "Name=gpu File=/dev/nvidia[0-1]\n"}}},
         {"/etc/slurm/slurm.conf", {{"text", "NodeName=gpu02 Gres=gpu:9\n"}}},
         {"/dev/nvidia0", {{"other", true}}}}}});
  const sys::ReplaySystem system(snapshot);
  const Facts f = collect_facts(system);
  ASSERT_TRUE(f.slurm);
  EXPECT_EQ(f.slurm->conf, "/opt/slurm/etc/slurm.conf");  // $SLURM_CONF first
  EXPECT_EQ(f.slurm->node, "gpu02");
  EXPECT_EQ(f.slurm->configured_gpus, 4);
  EXPECT_EQ(f.slurm->gres_conf, "/opt/slurm/etc/gres.conf");
  EXPECT_EQ(f.slurm->missing_gpu_files, (std::vector<std::string>{"/dev/nvidia1"}));
  EXPECT_FALSE(f.slurm->in_job);
  // In a job (a snapshot keeps the variable's name, its value redacted).
  snapshot.env["SLURM_JOB_ID"] = "<redacted>";
  const auto in_job = collect_facts(sys::ReplaySystem(snapshot));
  ASSERT_TRUE(in_job.slurm);
  EXPECT_TRUE(in_job.slurm->in_job);
  // No slurm.conf: no Slurm facts; and none on Windows.
  EXPECT_FALSE(collect_facts(sys::ReplaySystem(testing::linux_snapshot())).slurm);
  EXPECT_FALSE(collect_facts(sys::ReplaySystem(testing::windows_snapshot(
                                 {{"files", {{"/etc/slurm/slurm.conf", {{"text", kSlurmConf}}}}}})))
                   .slurm);
}

TEST(SlurmPrivacy, ASnapshotKeepsTheNodeLinesAndNoPassword) {
  const std::string kept = keep_what_probes_read("/etc/slurm/slurm.conf", kSlurmConf);
  EXPECT_EQ(kept.find("s3cr3t"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("ClusterName"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("PartitionName"), std::string::npos) << kept;
  EXPECT_NE(kept.find("nodename=gpu[01-04] gres=gpu:a100:4(S:0-1),mps:400"), std::string::npos)
      << kept;
  // What is kept reads the same as the file.
  EXPECT_EQ(slurm_node_config(kept, "gpu01").gpus, 4);
  EXPECT_EQ(slurm_node_config(kept, "legacy-node").gpus, 2);
  // A $SLURM_CONF of another name is cleaned the same way; gres.conf keeps its GPU parameters.
  EXPECT_EQ(
      keep_what_probes_read("/opt/site.conf", kSlurmConf, "", "/opt/site.conf").find("s3cr3t"),
      std::string::npos);
  EXPECT_EQ(keep_what_probes_read("/etc/slurm/gres.conf",
                                  "NodeName=n1 Name=gpu File=/dev/nvidia0 Cores=0-7 Flags=x\n"),
            "nodename=n1 name=gpu file=/dev/nvidia0\n");
}

}  // namespace
}  // namespace gpuvet::probes
