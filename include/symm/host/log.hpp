#pragma once
// Logging for symm programs: one line per message on stderr, prefixed "[rank/world]"
// once the process knows its rank (set by symm::launch), "symm:" before that (the
// supervisor, option parsing). Each line is written with a single write(2) so lines
// of different ranks never interleave.
//
// SYMM_LOG_LEVEL selects what is printed: error, warn, info (default) or debug
// (or 0..3). Messages are preformatted strings: format them with fmt in .cc files.
#include <string_view>

namespace symm::log {

enum class Level { error = 0, warn = 1, info = 2, debug = 3 };

void error(std::string_view message);
void warn(std::string_view message);
void info(std::string_view message);
void debug(std::string_view message);

bool enabled(Level level);

// Called by symm::launch in each rank; messages are then prefixed "[rank/world]".
void set_rank(int rank, int world);

}  // namespace symm::log
