#include "core/gzip.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

namespace gzip = gpuvet::gzip;

std::string pseudo_random_bytes(size_t size, uint64_t seed) {
  std::string out(size, '\0');
  uint64_t state = seed;
  for (char& c : out) {
    // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    c = static_cast<char>((state * 0x2545F4914F6CDD1DULL) >> 56);
  }
  return out;
}

std::string compress_ok(std::string_view bytes) {
  auto compressed = gzip::compress(bytes);
  EXPECT_TRUE(compressed.ok()) << (compressed.ok() ? "" : compressed.error().message);
  return compressed.ok() ? std::move(compressed).value() : std::string();
}

TEST(GzipLooksCompressed, ChecksTheMagicBytes) {
  EXPECT_TRUE(gzip::looks_compressed("\x1f\x8b"));
  EXPECT_TRUE(gzip::looks_compressed("\x1f\x8b\x08\x00 and more"));
  EXPECT_FALSE(gzip::looks_compressed(""));
  EXPECT_FALSE(gzip::looks_compressed("\x1f"));
  EXPECT_FALSE(gzip::looks_compressed("\x8b\x1f"));
  EXPECT_FALSE(gzip::looks_compressed("{\"schema\": 1}"));
}

TEST(GzipLooksCompressed, TrueForCompressOutput) {
  EXPECT_TRUE(gzip::looks_compressed(compress_ok("")));
  EXPECT_TRUE(gzip::looks_compressed(compress_ok("hello")));
}

TEST(GzipRoundTrip, EmptyInput) {
  const std::string compressed = compress_ok("");
  EXPECT_FALSE(compressed.empty());
  auto back = gzip::decompress(compressed);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, "");
}

TEST(GzipRoundTrip, SmallInput) {
  const std::string input = "{\"env\": {\"PATH\": \"/usr/bin\"}, \"files\": []}\n";
  auto back = gzip::decompress(compress_ok(input));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, input);
}

TEST(GzipRoundTrip, BinaryBytesIncludingNul) {
  std::string input;
  for (int i = 0; i < 256; ++i)
    input.push_back(static_cast<char>(i));
  input += std::string(10, '\0');
  auto back = gzip::decompress(compress_ok(input));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, input);
}

TEST(GzipRoundTrip, ThreeMegabytesOfPseudoRandomBytes) {
  const std::string input = pseudo_random_bytes(3 * 1024 * 1024 + 17, 0x9E3779B97F4A7C15ULL);
  const std::string compressed = compress_ok(input);
  EXPECT_TRUE(gzip::looks_compressed(compressed));
  auto back = gzip::decompress(compressed);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), input.size());
  EXPECT_TRUE(*back == input);
}

TEST(GzipRoundTrip, CompressibleInputShrinks) {
  const std::string input(2 * 1024 * 1024 + 5, 'a');
  const std::string compressed = compress_ok(input);
  EXPECT_LT(compressed.size(), input.size() / 100);
  auto back = gzip::decompress(compressed);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back == input);
}

TEST(GzipRoundTrip, OutputExactlyAtTheLimitIsAccepted) {
  const std::string input(1000, 'x');
  auto back = gzip::decompress(compress_ok(input), input.size());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, input);
}

TEST(GzipDecompress, EmptyInputIsAnError) {
  EXPECT_FALSE(gzip::decompress("").ok());
}

TEST(GzipDecompress, NotGzipIsAnError) {
  auto result = gzip::decompress("this is plain text, not gzip at all");
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(result.error().message.empty());
}

TEST(GzipDecompress, TruncatedDataIsAnError) {
  const std::string input = pseudo_random_bytes(200 * 1024, 7) + std::string(100000, 'z');
  const std::string compressed = compress_ok(input);
  ASSERT_GT(compressed.size(), 100u);
  for (size_t keep : {size_t{1}, size_t{2}, size_t{10}, size_t{18}, compressed.size() / 2,
                      compressed.size() - 8, compressed.size() - 4, compressed.size() - 1}) {
    auto result = gzip::decompress(std::string_view(compressed).substr(0, keep));
    EXPECT_FALSE(result.ok()) << "accepted data truncated to " << keep << " of "
                              << compressed.size() << " bytes";
  }
}

TEST(GzipDecompress, TruncatedSmallStreamIsAnError) {
  const std::string compressed = compress_ok("hello, world");
  for (size_t keep = 0; keep < compressed.size(); ++keep) {
    auto result = gzip::decompress(std::string_view(compressed).substr(0, keep));
    EXPECT_FALSE(result.ok()) << "accepted data truncated to " << keep << " bytes";
  }
}

TEST(GzipDecompress, CorruptedHeaderIsAnError) {
  std::string compressed = compress_ok("some payload that is long enough to matter");
  compressed[2] = 0x07;  // compression method: only 8 (deflate) exists
  auto result = gzip::decompress(compressed);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("corrupt"), std::string::npos) << result.error().message;
}

TEST(GzipDecompress, CorruptedChecksumIsAnError) {
  std::string compressed = compress_ok("some payload that is long enough to matter");
  compressed[compressed.size() - 6] = static_cast<char>(compressed[compressed.size() - 6] ^ 0x5a);
  auto result = gzip::decompress(compressed);
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(result.error().message.empty());
}

TEST(GzipDecompress, CorruptedBodyIsAnError) {
  const std::string input = pseudo_random_bytes(64 * 1024, 42);
  const std::string compressed = compress_ok(input);
  for (size_t offset :
       {size_t{20}, compressed.size() / 3, compressed.size() / 2, compressed.size() - 20}) {
    std::string corrupted = compressed;
    corrupted[offset] = static_cast<char>(corrupted[offset] ^ 0xff);
    auto result = gzip::decompress(corrupted);
    EXPECT_FALSE(result.ok()) << "accepted data corrupted at byte " << offset;
  }
}

TEST(GzipDecompress, SizeLimitStopsAGzipBomb) {
  const std::string input(10 * 1024 * 1024, '\0');
  const std::string compressed = compress_ok(input);
  ASSERT_LT(compressed.size(), 100u * 1024);
  auto result = gzip::decompress(compressed, 64 * 1024);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("size limit"), std::string::npos) << result.error().message;
}

TEST(GzipDecompress, SizeLimitOneByteBelowTheOutput) {
  const std::string input(5000, 'q');
  auto result = gzip::decompress(compress_ok(input), input.size() - 1);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("size limit"), std::string::npos) << result.error().message;
}

TEST(GzipMembers, ConcatenatedMembersAreOneStream) {
  const std::string both = *gzip::compress("hello ") + *gzip::compress("world");
  const auto out = gzip::decompress(both);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out.value(), "hello world");
}

TEST(GzipMembers, TrailingJunkIsAnError) {
  const auto out = gzip::decompress(*gzip::compress("hello") + "junk");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("after the gzip stream"), std::string::npos);
}

// 64 MiB of zeros compresses to some 64 KiB: a small file that would inflate a thousandfold.
const std::string& compressed_zeros() {
  static const std::string compressed = compress_ok(std::string(size_t{64} << 20, '\0'));
  return compressed;
}

TEST(GzipInflater, StopsAtTheCeilingWithoutReadingTheRest) {
  constexpr size_t kCap = size_t{1} << 20;
  gzip::Inflater inflater(kCap);
  std::string out;
  auto fed = inflater.feed(compressed_zeros(), out);
  ASSERT_FALSE(fed.ok());
  EXPECT_NE(fed.error().message.find("size limit of 1 MiB"), std::string::npos)
      << fed.error().message;
  // One byte past the ceiling is produced, and the compressed input is left mostly unread.
  EXPECT_EQ(inflater.produced(), kCap + 1);
  EXPECT_EQ(out.size(), kCap + 1);
  EXPECT_LT(inflater.consumed(), compressed_zeros().size() / 8);
  // The error stays: nothing more is inflated.
  EXPECT_FALSE(inflater.feed("more", out).ok());
  EXPECT_EQ(out.size(), kCap + 1);
  EXPECT_FALSE(inflater.finish().ok());
}

TEST(GzipInflater, AnyChunkingGivesTheSameBytes) {
  const std::string first = pseudo_random_bytes(70000, 3);
  const std::string second(5000, 'q');
  // Two members back to back are one stream; feed it in awkward pieces, the magic bytes of the
  // second member split between two of them.
  const std::string a = compress_ok(first);
  const std::string stream = a + compress_ok(second);
  for (const size_t piece : {size_t{1}, size_t{7}, a.size() - 1, a.size() + 1}) {
    gzip::Inflater inflater(1 << 20);
    std::string out;
    for (size_t at = 0; at < stream.size(); at += piece) {
      auto fed = inflater.feed(std::string_view(stream).substr(at, piece), out);
      ASSERT_TRUE(fed.ok()) << piece << ": " << fed.error().message;
    }
    auto done = inflater.finish();
    ASSERT_TRUE(done.ok()) << piece << ": " << done.error().message;
    EXPECT_TRUE(out == first + second) << piece;
    EXPECT_EQ(inflater.consumed(), stream.size()) << piece;
  }
}

TEST(GzipInflater, GarbageAfterTheStreamIsAnError) {
  for (const std::string& tail : {std::string("x"), std::string("xyz"), std::string("\x1f")}) {
    auto result = gzip::decompress(compress_ok("payload") + tail);
    ASSERT_FALSE(result.ok()) << tail;
    EXPECT_NE(result.error().message.find("after the gzip stream"), std::string::npos)
        << result.error().message;
  }
}

}  // namespace
