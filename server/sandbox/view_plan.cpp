// sandbox/view_plan.cpp: builds the ordered list of mount steps of a confined command's view.
#include "sandbox/view_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>

namespace hone::sandbox {
namespace {

namespace fs = std::filesystem;

// Whether `ancestor` is `path` or a folder above it (both absolute and normal).
bool is_within(const fs::path& path, const fs::path& ancestor) {
  auto a = ancestor.begin(), p = path.begin();
  for (; a != ancestor.end(); ++a, ++p) {
    if (a->empty()) continue;  // a trailing separator
    if (p == path.end() || *a != *p) return false;
  }
  return true;
}

enum class Access { ro, rw, dev };

}  // namespace

ResolvedPath resolve_links(const fs::path& path) {
  if (!path.is_absolute()) throw std::invalid_argument("sandbox policy: path is not absolute: " + path.string());
  ResolvedPath out;
  std::deque<fs::path> pending(path.begin(), path.end());
  pending.pop_front();  // the root
  fs::path current = "/";
  int hops = 0;
  while (!pending.empty()) {
    fs::path comp = pending.front();
    pending.pop_front();
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      current = current.parent_path();
      continue;
    }
    fs::path next = current / comp;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0)
      throw std::invalid_argument("sandbox policy: " + path.string() + " does not exist (" + next.string() + ")");
    if (!S_ISLNK(st.st_mode)) {
      current = next;
      continue;
    }
    if (++hops > 40) throw std::invalid_argument("sandbox policy: too many symbolic links in " + path.string());
    std::string text(static_cast<std::size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlink(next.c_str(), text.data(), text.size());
    if (n < 0) throw std::invalid_argument("sandbox policy: cannot read the link " + next.string());
    text.resize(static_cast<std::size_t>(n));
    out.links.emplace_back(next, text);
    fs::path target(text);
    if (target.is_absolute()) current = "/";
    std::vector<fs::path> parts;
    for (const auto& part : target)
      if (!part.empty() && part != "/") parts.push_back(part);
    pending.insert(pending.begin(), parts.begin(), parts.end());
  }
  out.real = current;
  return out;
}

std::vector<fs::path> gpu_device_nodes(const fs::path& dev) {
  std::vector<fs::path> nodes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dev, ec)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("nvidia") || name == "dri") nodes.push_back(entry.path());
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

namespace {

// What the view is made of: each real path with its access (the widest asked for), the symbolic
// links met on the way to them, the hidden paths and the files shown at another place.
struct ViewParts {
  std::map<fs::path, Access> binds;
  std::vector<std::pair<fs::path, std::string>> links;
  std::vector<fs::path> hidden;
  std::vector<std::pair<fs::path, fs::path>> shown;  // source, dest (both real)
};

ViewParts collect_parts(const SandboxPolicy& policy, const std::vector<fs::path>& extra_read_only) {
  std::vector<std::pair<fs::path, Access>> requests;
  for (const auto& p : system_read_paths()) requests.emplace_back(p, Access::ro);
  for (const auto& p : policy.read_only) requests.emplace_back(p, Access::ro);
  for (const auto& p : extra_read_only) requests.emplace_back(p, Access::ro);
  requests.emplace_back(policy.scratch, Access::rw);
  if (policy.gpu)
    for (const auto& p : gpu_device_nodes()) requests.emplace_back(p, Access::dev);

  ViewParts parts;
  for (const auto& [path, access] : requests) {
    ResolvedPath r = resolve_links(path);
    parts.links.insert(parts.links.end(), r.links.begin(), r.links.end());
    auto [it, inserted] = parts.binds.emplace(r.real, access);
    if (!inserted && access != Access::ro) it->second = access;
  }
  for (const auto& h : policy.hidden) parts.hidden.push_back(resolve_links(h).real);
  for (const auto& f : policy.read_only_at) {
    ResolvedPath dest = resolve_links(f.dest);
    parts.links.insert(parts.links.end(), dest.links.begin(), dest.links.end());
    parts.shown.emplace_back(resolve_links(f.source).real, dest.real);
  }
  return parts;
}

// A read-only bind inside another read-only bind is redundant unless a writable bind or a mask
// lies between them.
bool is_shadowed(const ViewParts& parts, const fs::path& p, Access access) {
  for (const auto& [a, a_access] : parts.binds) {
    if (a == p || !is_within(p, a) || a_access != access) continue;
    bool between = std::any_of(parts.binds.begin(), parts.binds.end(), [&](const auto& b) {
      return b.second != access && b.first != a && is_within(b.first, a) && is_within(p, b.first);
    });
    between = between || std::any_of(parts.hidden.begin(), parts.hidden.end(),
                                     [&](const fs::path& h) { return is_within(h, a) && is_within(p, h); });
    between = between || std::any_of(parts.shown.begin(), parts.shown.end(), [&](const auto& f) {
                return is_within(f.second, a) && is_within(p, f.second);
              });
    if (!between) return true;
  }
  return false;
}

// The binds (less the shadowed ones) and the shown files; `bound` gets every destination.
void add_binds(const ViewParts& parts, std::vector<ViewStep>& steps, std::vector<fs::path>& bound) {
  for (const auto& [path, access] : parts.binds) {
    if (access != Access::dev && is_shadowed(parts, path, access)) continue;
    ViewStep s;
    s.kind = access == Access::ro ? ViewStep::Kind::ro_bind
                                  : (access == Access::rw ? ViewStep::Kind::bind : ViewStep::Kind::dev_bind);
    s.source = path;
    s.dest = path;
    steps.push_back(s);
    bound.push_back(path);
  }
  for (const auto& [source, dest] : parts.shown) {
    steps.push_back({ViewStep::Kind::ro_bind, source, dest});
    bound.push_back(dest);
  }
}

// The links met outside every bind, and the masks over hidden paths inside one; returns the
// read-only remounts the masked folders need.
std::vector<ViewStep> add_links_and_masks(const ViewParts& parts, const std::vector<fs::path>& bound,
                                          std::vector<ViewStep>& steps) {
  auto inside_bound = [&](const fs::path& p) {
    return std::any_of(bound.begin(), bound.end(), [&](const fs::path& b) { return is_within(p, b); });
  };
  std::set<fs::path> linked;
  for (const auto& [where, text] : parts.links) {
    if (inside_bound(where) || !linked.insert(where).second) continue;
    steps.push_back({ViewStep::Kind::symlink, text, where});
  }
  std::vector<ViewStep> remounts;
  for (const auto& h : parts.hidden) {
    if (!inside_bound(h)) continue;
    if (fs::is_directory(h)) {
      steps.push_back({ViewStep::Kind::tmpfs, {}, h, 1u << 20, 0755});
      remounts.push_back({ViewStep::Kind::remount_ro, {}, h});
    } else {
      steps.push_back({ViewStep::Kind::ro_bind, "/dev/null", h});
    }
  }
  return remounts;
}

}  // namespace

std::vector<ViewStep> plan_view(const SandboxPolicy& policy, const std::vector<fs::path>& extra_read_only) {
  if (policy.scratch.empty() || !policy.scratch.is_absolute())
    throw std::invalid_argument("sandbox policy: the scratch folder must be an absolute path, got '" +
                                policy.scratch.string() + "'");
  ViewParts parts = collect_parts(policy, extra_read_only);
  std::vector<ViewStep> steps;
  std::vector<fs::path> bound;
  add_binds(parts, steps, bound);
  steps.push_back({ViewStep::Kind::proc, {}, "/proc"});
  steps.push_back({ViewStep::Kind::dev, {}, "/dev"});
  steps.push_back({ViewStep::Kind::tmpfs, {}, "/tmp", policy.limits.tmp_bytes, 01777});
  steps.push_back({ViewStep::Kind::tmpfs, {}, "/dev/shm", policy.limits.tmp_bytes, 01777});
  std::vector<ViewStep> remounts = add_links_and_masks(parts, bound, steps);
  // Parents before children; among equal destinations the order above is kept.
  std::stable_sort(steps.begin(), steps.end(), [](const ViewStep& a, const ViewStep& b) { return a.dest < b.dest; });
  // Last, the root and /dev become read-only: only the scratch folder, /tmp and /dev/shm are writable.
  remounts.push_back({ViewStep::Kind::remount_ro, {}, "/dev"});
  remounts.push_back({ViewStep::Kind::remount_ro, {}, "/"});
  steps.insert(steps.end(), remounts.begin(), remounts.end());
  return steps;
}

std::vector<std::string> view_arguments(const std::vector<ViewStep>& steps) {
  std::vector<std::string> args;
  for (const auto& s : steps) {
    switch (s.kind) {
      case ViewStep::Kind::ro_bind:
        args.insert(args.end(), {"--ro-bind", s.source.string(), s.dest.string()});
        break;
      case ViewStep::Kind::bind:
        args.insert(args.end(), {"--bind", s.source.string(), s.dest.string()});
        break;
      case ViewStep::Kind::dev_bind:
        args.insert(args.end(), {"--dev-bind", s.source.string(), s.dest.string()});
        break;
      case ViewStep::Kind::symlink:
        args.insert(args.end(), {"--symlink", s.source.string(), s.dest.string()});
        break;
      case ViewStep::Kind::tmpfs: {
        char perms[8];
        std::snprintf(perms, sizeof perms, "%o", s.perms);
        args.insert(args.end(), {"--perms", perms});
        if (s.size_bytes) args.insert(args.end(), {"--size", std::to_string(s.size_bytes)});
        args.insert(args.end(), {"--tmpfs", s.dest.string()});
        break;
      }
      case ViewStep::Kind::remount_ro:
        args.insert(args.end(), {"--remount-ro", s.dest.string()});
        break;
      case ViewStep::Kind::proc:
        args.insert(args.end(), {"--proc", s.dest.string()});
        break;
      case ViewStep::Kind::dev:
        args.insert(args.end(), {"--dev", s.dest.string()});
        break;
    }
  }
  return args;
}

bool visible_in_view(const std::vector<ViewStep>& steps, const fs::path& path) {
  return std::any_of(steps.begin(), steps.end(), [&](const ViewStep& s) {
    switch (s.kind) {
      case ViewStep::Kind::ro_bind:
      case ViewStep::Kind::bind:
      case ViewStep::Kind::dev_bind:
        // Inside the bound path, or one of the folders made on the way to it.
        return is_within(path, s.dest) || is_within(s.dest, path);
      case ViewStep::Kind::tmpfs:
      case ViewStep::Kind::proc:
      case ViewStep::Kind::dev:
        return path == s.dest;
      default:
        return false;
    }
  });
}

}  // namespace hone::sandbox
