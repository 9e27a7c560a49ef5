// sandbox/confine/options.cpp: hone-confine's command line (a bwrap-like subset plus limits).
#include <cstdlib>
#include <map>

#include "sandbox/confine/confine.h"

namespace hone::sandbox::confine {
namespace {

unsigned long long parse_number(const std::string& text, const std::string& what, int base = 10) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, base);
  if (text.empty() || errno != 0 || *end != '\0' || text[0] == '-')
    throw ConfineError(what + ": not a number: '" + text + "'");
  return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

Credentials parse_user(const std::string& text) {
  auto parts = split(text, ':');
  if (parts.size() < 2 || parts.size() > 3) throw ConfineError("--user wants UID:GID[:G1,G2], got '" + text + "'");
  Credentials c;
  c.uid = static_cast<unsigned>(parse_number(parts[0], "--user"));
  c.gid = static_cast<unsigned>(parse_number(parts[1], "--user"));
  if (parts.size() == 3 && !parts[2].empty())
    for (const auto& g : split(parts[2], ',')) c.groups.push_back(static_cast<unsigned>(parse_number(g, "--user")));
  return c;
}

std::pair<int, rlim_t> parse_rlimit(const std::string& text) {
  static const std::map<std::string, int> names{
      {"cpu", RLIMIT_CPU},     {"as", RLIMIT_AS},     {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC},
      {"fsize", RLIMIT_FSIZE}, {"core", RLIMIT_CORE}, {"data", RLIMIT_DATA}};
  auto eq = text.find('=');
  auto it = names.find(text.substr(0, eq));
  if (eq == std::string::npos || it == names.end())
    throw ConfineError("--rlimit wants NAME=VALUE with NAME one of cpu, as, nofile, nproc, fsize, core, data; got '" +
                       text + "'");
  return {it->second, static_cast<rlim_t>(parse_number(text.substr(eq + 1), "--rlimit " + it->first))};
}

}  // namespace

ConfineOptions parse_options(const std::vector<std::string>& args) {
  ConfineOptions o;
  std::uint64_t next_size = 0;
  unsigned next_perms = 0755;
  std::size_t i = 0;
  auto value = [&](const std::string& option) -> const std::string& {
    if (i + 1 >= args.size()) throw ConfineError(option + " needs a value");
    return args[++i];
  };
  auto step = [&](ViewStep::Kind kind, bool has_source) {
    const std::string option = args[i];
    ViewStep s;
    s.kind = kind;
    if (has_source) s.source = value(option);
    s.dest = value(option);
    if (!s.dest.is_absolute()) throw ConfineError(option + ": the destination must be absolute: " + s.dest.string());
    if (kind == ViewStep::Kind::tmpfs) {
      s.size_bytes = next_size;
      s.perms = next_perms;
      next_size = 0;
      next_perms = 0755;
    }
    o.steps.push_back(s);
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      o.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a == "--unshare")
      o.unshare = true;
    else if (a == "--supervise")
      o.supervise = true;
    else if (a == "--seccomp")
      o.seccomp = true;
    else if (a == "--user")
      o.user = parse_user(value(a));
    else if (a == "--chdir")
      o.chdir = value(a);
    else if (a == "--rlimit")
      o.rlimits.push_back(parse_rlimit(value(a)));
    else if (a == "--ro-bind")
      step(ViewStep::Kind::ro_bind, true);
    else if (a == "--bind")
      step(ViewStep::Kind::bind, true);
    else if (a == "--dev-bind")
      step(ViewStep::Kind::dev_bind, true);
    else if (a == "--symlink")
      step(ViewStep::Kind::symlink, true);
    else if (a == "--tmpfs")
      step(ViewStep::Kind::tmpfs, false);
    else if (a == "--remount-ro")
      step(ViewStep::Kind::remount_ro, false);
    else if (a == "--proc")
      step(ViewStep::Kind::proc, false);
    else if (a == "--dev")
      step(ViewStep::Kind::dev, false);
    else if (a == "--size")
      next_size = parse_number(value(a), a);
    else if (a == "--perms")
      next_perms = static_cast<unsigned>(parse_number(value(a), a, 8));
    else
      throw ConfineError("unknown option '" + a + "'");
  }
  if (o.command.empty()) throw ConfineError("no command given (after --)");
  if (!o.unshare && (!o.steps.empty() || o.user)) throw ConfineError("view options and --user need --unshare");
  if (o.supervise && (o.unshare || o.seccomp || !o.rlimits.empty() || o.chdir))
    throw ConfineError("--supervise takes no other option: it only runs the command as its child");
  return o;
}

}  // namespace hone::sandbox::confine
