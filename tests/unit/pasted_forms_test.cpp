#include "explain/pasted_forms.hpp"

#include <gtest/gtest.h>

#include <string>

#include "explain_support.hpp"

namespace gpuvet::explain {
namespace {

constexpr std::string_view kMessage =
    "RuntimeError: \"slow_conv2d_cpu\" not implemented for 'Half'";

TEST(PastedForms, EachWrappingIsPeeledToItsMessage) {
  const std::string message(kMessage);
  for (const std::string& line : {
           // Docker's json-file log driver.
           std::string(R"({"log":"RuntimeError: \"slow_conv2d_cpu\" not implemented for 'Half'\n",)"
                       R"("stream":"stderr","time":"2024-05-01T12:00:00.1Z"})"),
           // Kubernetes' container log (CRI), a full and a partial line.
           "2024-05-01T12:00:00.123456789Z stderr F " + message,
           "2024-05-01T12:00:00+08:00 stdout P " + message,
           // The journal and syslog: with and without the host, with and without the pid.
           "Oct 23 10:22:21 ubuntu ollama[64294]: " + message,
           "Oct  3 10:22:21 kernel: " + message,
           "2025-10-23T10:22:21+0800 gpu-node-7 python3[12]: " + message,
           // docker compose v2 and v1, and a container_name without digits.
           "ollama-1  | " + message,
           "web_1     | " + message,
           "open-webui  | " + message,
           // A CI runner's time (GitHub Actions).
           "2024-05-01T12:00:00.1234567Z " + message,
           // torchrun.
           "[rank0]: " + message,
           "[default12]:" + message,
           // A quoted reply.
           "> " + message,
           // A web page's entities, named and numeric.
           std::string(
               "RuntimeError: &quot;slow_conv2d_cpu&quot; not implemented for &#39;Half&#39;"),
           std::string(
               "RuntimeError: &#34;slow_conv2d_cpu&#x22; not implemented for &apos;Half&#x27;"),
       }) {
    EXPECT_EQ(message_of(line), message) << line;
  }
}

TEST(PastedForms, WrappingsInsideWrappingsArePeeled) {
  const std::string message(kMessage);
  EXPECT_EQ(message_of("> Oct 23 10:22:21 host trainer[7]: [rank3]: " + message), message);
  EXPECT_EQ(message_of(R"({"log":"[rank0]: RuntimeError: \"x\" not implemented for 'Half'\n"})"),
            "RuntimeError: \"x\" not implemented for 'Half'");
  EXPECT_EQ(message_of("ollama-1  | &lt;built-in&gt; &amp; more"), "<built-in> & more");
}

// Lines that look like a wrapping but are a message as written: left as they are.
TEST(PastedForms, NearMissesAreLeftAsWritten) {
  for (const std::string_view line : {
           // TensorFlow's own timestamp, which its signatures read.
           "2023-07-13 15:38:30.515088: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find "
           "cuda drivers on your machine, GPU will not be used.",
           // Python's prompt and a traceback's pointer.
           ">>> import torch",
           "-> 1753     return torch._C._nn.linear(input, weight, bias)",
           // conda's download table: a package's name and version before the bar.
           "pytorch-1.7.1              |cpu_py37hf1c21f6_1",
           "    numpy-1.19.2   |   py37h54aff64_0",
           // nvidia-smi's table.
           "|   0  NVIDIA GeForce RTX 3090     Off |   00000000:01:00.0  On |                  N/A "
           "|",
           // A bar without compose's padding, and one with nothing after it.
           "epoch 1 | loss 0.25",
           // loguru's level.
           "ERROR    | __main__:main:5 - CUDA error",
           "ollama-1  | ",
           // Not a rank, not a month.
           "[rankX]: x",
           "[rank]: x",
           "Foo 23 10:22:21 host a[1]: x",
           // A journal-like time with no ident after it.
           "Oct 23 10:22:21 a sentence without any colon",
           // An ampersand that is no reference, and references that name no text.
           "cmd1 && cmd2 &foo; &#; &#x; &#0; &#xD800; &#99999999;",
           // A broken Docker record: left whole, never thrown.
           R"({"log":"RuntimeError: unterminated)",
           R"({"log":"x","stream":)",
           R"({"log":42})",
       }) {
    EXPECT_FALSE(unwrapped_message(line).has_value()) << line;
  }
}

// After a CI runner's time the message keeps its own first word ("RuntimeError: "), which a
// journal's program name would otherwise be taken for.
TEST(PastedForms, ACiRunnersTimeKeepsTheMessagesWords) {
  EXPECT_EQ(message_of("2024-05-01T12:00:00.1234567Z RuntimeError: CUDA error: out of memory"),
            "RuntimeError: CUDA error: out of memory");
  EXPECT_EQ(message_of("2024-05-01T12:00:00Z ImportError libcudart: cannot open"),
            "ImportError libcudart: cannot open");
  EXPECT_EQ(message_of("2025-10-23T10:22:21+0800 RuntimeError: CUDA error: out of memory"),
            "RuntimeError: CUDA error: out of memory");
}

TEST(PastedForms, EntitiesAreDecodedBeforeTheWrappingIsPeeled) {
  EXPECT_EQ(message_of("&gt; RuntimeError: x"), "RuntimeError: x");
  // A line break inside a line is a space; ESC and other control characters stay references.
  EXPECT_EQ(message_of("a&#10;b&#13;c&#9;d"), "a b c d");
  EXPECT_FALSE(unwrapped_message("a&#27;[31mb &#0; &#127; &#150;").has_value());
}

TEST(PastedForms, ReferencesDecodeToUtf8) {
  EXPECT_EQ(message_of("&#20013;&#x6587; &#128512;"), "\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80");
  EXPECT_EQ(message_of("a&nbsp;b &amp;quot;"), "a b &quot;");
}

TEST(PastedForms, EscapedFormsAreFoundForTheFastPath) {
  EXPECT_EQ(first_escaped_form("plain line\nno escapes && here\n"), std::string_view::npos);
  EXPECT_EQ(first_escaped_form("ab &quot;x&quot;"), 3u);
  EXPECT_EQ(first_escaped_form("line\n{\"log\":\"\\\"x\\n\"}"), 5u);
  EXPECT_EQ(first_escaped_form("a & b &#39;"), 6u);
}

// Far into a long log, past the lines read whole, a message whose signature's literal holds a
// quote is found inside a web page's entities and inside a Docker record (where JSON escapes the
// quotes): the reader's fast path delivers such lines though the literal is not in them as
// written.
TEST(PastedForms, ExplainFindsEscapedMessagesFarIntoALog) {
  std::string filler;
  while (filler.size() < 256 * 1024)
    filler += "epoch 1 step 100 loss 0.25 lr 0.001\n";
  const std::string message =
      "cuda_topk_softmax.cuh(46): error: namespace \"cub\" has no member \"Sum\"";
  for (
      const std::string& line : {
          std::string("cuda_topk_softmax.cuh(46): error: namespace &quot;cub&quot; has no member "
                      "&quot;Sum&quot;"),
          std::string(
              R"({"log":"cuda_topk_softmax.cuh(46): error: namespace \"cub\" has no member \"Sum\"\n",)"
              R"("stream":"stderr"})"),
      }) {
    const auto causes = testing::explain_by_signatures(filler + line + "\n" + filler);
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes.front().id, "cuda.toolkit_removed_api") << line;
    ASSERT_FALSE(causes.front().evidence.empty());
    EXPECT_EQ(causes.front().evidence.front().text, message);
  }
}

// Docker's records are delivered only where their message holds an escape: the others hold any
// literal as written.
TEST(PastedForms, OnlyEscapedDockerRecordsAreEscapedForms) {
  EXPECT_EQ(first_escaped_form(R"({"log":"plain text\n","stream":"stderr"})"),
            std::string_view::npos);
  EXPECT_EQ(first_escaped_form(R"({"log":"a \"quoted\" word\n"})"), 0u);
  EXPECT_EQ(first_escaped_form("x\n"
                               R"({"log":"C:\\Users\n"})"),
            2u);
}

}  // namespace
}  // namespace gpuvet::explain
