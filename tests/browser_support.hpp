#pragma once
// A real headless Chromium for the tests of gpuvet's HTML pages: opens a page, keeps what the
// browser logged, and takes a screenshot or dumps the DOM after the page's script ran.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "core/text.hpp"

namespace gpuvet::testing {

inline std::string find_chromium() {
  const auto found =
      run_command("command -v chromium || command -v chromium-browser || true 2>/dev/null");
  const std::string path(text::trim(found.output.substr(0, found.output.find('\n'))));
  return path;
}

struct BrowserRun {
  int status = -1;
  std::string log;  // its standard output and error
  std::uintmax_t screenshot_bytes = 0;
  double seconds = 0;
};

// Opens `html` in a headless Chromium with its own profile, takes a 1280x1800 screenshot and
// keeps what the browser logged; at most a minute.
inline BrowserRun open_in_browser(const std::string& browser, const TempDir& dir,
                                  const std::string& name, const std::string& html) {
  const std::string page = dir.file(name + ".html", html);
  const std::string shot = dir.path() + "/" + name + ".png";
  const std::string command = "timeout 60 '" + browser +
                              "' --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
                              "--window-size=1280,1800 '--user-data-dir=" +
                              dir.path() + "/profile-" + name + "' '--screenshot=" + shot +
                              "' --enable-logging=stderr --v=0 'file://" + page + "' 2>&1";
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_command(command);
  BrowserRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.status = result.status;
  run.log = result.output;
  std::error_code ec;
  if (std::filesystem::exists(shot, ec))
    run.screenshot_bytes = std::filesystem::file_size(shot, ec);
  std::cout << "[ chromium ] " << name << ": " << run.seconds << " s, exit " << run.status
            << ", screenshot " << run.screenshot_bytes << " bytes\n";
  return run;
}

// Chromium writes each console message of the page to its log as
//   [pid:tid:time:INFO:CONSOLE:12] "Uncaught ReferenceError: ...", source: file:///... (12)
// ("INFO:CONSOLE(12)" in older releases), always at INFO whatever the console level, so an
// error cannot be told from a console.log by its tag. The page runs no script, so every console
// message is a fault: an uncaught exception, a bad SVG attribute ("Error: <polyline> attribute
// points: Expected number"), a load the page's Content-Security-Policy refused.
inline std::vector<std::string> console_messages(const std::string& log) {
  std::vector<std::string> found;
  for (const auto& line : text::split(log, '\n')) {
    if (line.find(":CONSOLE:") != std::string::npos ||
        line.find(":CONSOLE(") != std::string::npos || line.find("Uncaught") != std::string::npos)
      found.push_back(line);
  }
  return found;
}

// The page's DOM after its script ran, opened at `fragment` ("#sort=driver").
inline std::string dump_dom(const std::string& browser, const TempDir& dir, const std::string& name,
                            const std::string& html, const std::string& fragment) {
  const std::string page = dir.file(name + ".html", html);
  const std::string command =
      "timeout 60 '" + browser +
      "' --headless=new --no-sandbox --disable-gpu '--user-data-dir=" + dir.path() +
      "/profile-dom-" + name + "' --dump-dom 'file://" + page + fragment + "' 2>/dev/null";
  return run_command(command).output;
}

}  // namespace gpuvet::testing
