// The two kinds of error used by every Weft layer: a UserError is something the user can fix
// (a bad program, file, flag or schedule) and its message says what and where; an
// InternalError is a broken invariant inside Weft. The CLI maps them to different exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace weft {

/// A problem with the user's input; the message names what is wrong and where.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what) : std::runtime_error(what) {}
};

/// A broken invariant inside Weft (a bug), never caused by input alone.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};

}  // namespace weft
