// runner/time_op.cpp: the timed loops of the time op.
#include "runner/time_op.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "runner/outcome.h"
#include "runner/records_op.h"
#include "runner/time_plan.h"
#include "runner/wire.h"

namespace hone::runner {
namespace {

constexpr const char* kGpuTime = "gpu__time_duration.sum";  // nanoseconds

using Clock = std::chrono::steady_clock;

constexpr auto kSettleWindow = std::chrono::milliseconds(5);
constexpr double kSettleAgreement = 0.02;
constexpr int kSettleAgreements = 3;  // in a row: clocks ramping up from idle agree once by chance
constexpr std::size_t kInFlight = 8;  // settle calls queued ahead of the device at most

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

class TimedLoop {
 public:
  TimedLoop(const TimePlan& plan, OpContext& ctx, CuptiLibrary& cupti) : p_(plan), ctx_(ctx), cupti_(cupti) {
    const std::size_t slots = std::max<std::size_t>(plan.slots.size(), 1);
    for (std::size_t j = 0; j < slots; ++j)
      packs_.emplace_back(plan.targets, plan.slots.empty() ? std::vector<TensorView>{} : plan.slots[j]);
  }

  nlohmann::json run() {
    // Everything that may allocate or synchronise happens now, never behind a held stream.
    const std::size_t most = std::max({p_.schedule.size(), static_cast<std::size_t>(p_.warmup), kInFlight + 1});
    ctx_.backend.reserve_marks(2 * most);
    ctx_.backend.reserve_flush(p_.flush_bytes);
    ctx_.backend.synchronize();
    inputs_after_flush_ = !ctx_.backend.is_cuda() && p_.flush_bytes > 0 && !p_.sets.empty() &&
                          ctx_.backend.evict(nullptr, 0);
    const double settled_ms = settle();
    const std::vector<TimedCall> warm(static_cast<std::size_t>(p_.warmup), TimedCall{});
    const std::vector<double> warmup_us = run_calls(warm, "warm-up call");
    const auto started = Clock::now();
    std::vector<double> times_us;
    bool timed_out = false;
    if (p_.device_mode) {
      times_us = run_held(timed_out, started);
    } else if (p_.kernel_counters > 0) {
      times_us = run_counted();
    } else {
      times_us = run_calls(p_.schedule, "timed call");
    }
    nlohmann::json times = nlohmann::json::array(), warmups = nlohmann::json::array();
    for (double t : times_us) times.push_back(number(t));
    for (double t : warmup_us) warmups.push_back(number(t));
    nlohmann::json reply{{"times_us", times},
                         {"warmup_us", warmups},
                         {"settle_ms", settled_ms},
                         {"enqueue_s", enqueue_s_ > 0 ? enqueue_s_ : ms_since(started) / 1000.0},
                         {"spin_timed_out", timed_out},
                         {"method", p_.device_mode ? "cuda_events_held_stream" : ctx_.backend.is_cuda() ? "cuda_events" : "host_clock"}};
    if (!ctx_.backend.is_cuda()) reply["inputs_after_flush"] = inputs_after_flush_;
    if (!activities_.is_null()) reply["activities"] = activities_;
    if (p_.device_mode) reply["after_release_s"] = {{"synchronize", sync_s_}, {"records", records_s_}};
    if (!records_error_.empty()) reply["kernel_records_error"] = records_error_;
    if (!counters_.is_null()) reply["counter_ranges"] = counters_;
    if (!counter_seconds_.is_null()) reply["counter_seconds"] = counter_seconds_;
    if (!counters_error_.empty()) reply["kernel_counters_error"] = counters_error_;
    if (p_.kernel_counters > 0 && p_.flush_each_kernel) {
      reply["flushed_each_kernel"] = each_kernel_;
      if (!kernel_prologue_.is_null()) reply["kernel_prologue"] = kernel_prologue_;
      if (!kernel_flush_error_.empty()) reply["kernel_flush_error"] = kernel_flush_error_;
    }
    return reply;
  }

 private:
  // Set `set` into the targets, then the call's rows from their donor sets; the mixed targets
  // are made from every set instead (hone_mix).
  void apply_inputs(const TimedCall& c) {
    if (p_.sets.empty()) return;
    const std::vector<ArgSpec>& set = p_.sets[c.set];
    for (std::size_t i = 0; i < p_.targets.size(); ++i)
      if (p_.targets[i].kind == hone::ArgKind::Tensor && std::find(c.mixed.begin(), c.mixed.end(), i) == c.mixed.end())
        copy_runs(p_.whole[i], p_.targets[i].tensor.data, set[i].tensor.data, 0);
    for (const RowSwap& r : c.rows)
      copy_runs(p_.row0[r.arg], p_.targets[r.arg].tensor.data, p_.sets[r.donor][r.arg].tensor.data,
                static_cast<std::size_t>(r.row) * p_.row_bytes[r.arg]);
    for (const std::size_t a : c.mixed) {
      std::vector<const void*> sources;
      for (const std::vector<ArgSpec>& s : p_.sets) sources.push_back(s[a].tensor.data);
      const TensorView& t = p_.targets[a].tensor;
      ctx_.backend.mix(t.data, sources.data(), static_cast<int>(sources.size()), t.itemsize,
                       static_cast<std::size_t>(t.numel()), c.mix_seed);
    }
  }

  void copy_runs(const std::vector<CopyRun>& runs, unsigned char* dst, const unsigned char* src, std::size_t shift) {
    for (const CopyRun& run : runs)
      ctx_.backend.copy_rows(dst + run.offset + shift, run.pitch, src + run.offset + shift, run.pitch, run.width, run.rows);
  }

  // Forward on slot's pack (prepared before the call's mark: nothing but forward is timed).
  void call(std::size_t slot, const hone::ArgDesc* args, const char* what, std::size_t index) {
    const int code = ctx_.kernel.forward(args, packs_[slot].count(), ctx_.backend.stream());
    if (code != 0) fail(code, std::string(what) + " " + std::to_string(index));
  }

  [[noreturn]] void fail(int code, const std::string& what) {
    release_hold();
    synchronize_after(ctx_.backend, what);
    raise_forward_failure(code, ctx_.kernel, what);
  }

  // Calls until successive windows of kSettleWindow agree within 2% kSettleAgreements times in a
  // row, or settle_ms passes.
  double settle() {
    if (p_.settle_ms <= 0) return 0;
    const auto start = Clock::now();
    if (!p_.sets.empty()) apply_inputs(TimedCall{});
    double previous = -1;
    int agreed = 0;
    std::size_t index = 0;
    while (true) {
      ctx_.backend.mark(0);
      const auto window = Clock::now();
      std::size_t n = 0;
      do {
        if (n >= kInFlight) ctx_.backend.wait_mark(2 + n % kInFlight);
        call(0, packs_[0].prepare(), "settling call", index++);
        ctx_.backend.mark(2 + n % kInFlight);
        ++n;
      } while (Clock::now() - window < kSettleWindow);
      ctx_.backend.mark(1);
      synchronize_after(ctx_.backend, "settling calls");
      const double per_call = ctx_.backend.elapsed_us(0, 1) / static_cast<double>(n);
      const bool agree = previous > 0 && std::fabs(per_call - previous) <= kSettleAgreement * std::max(per_call, previous);
      agreed = agree ? agreed + 1 : 0;
      previous = per_call;
      const double spent = ms_since(start);
      if ((agreed >= kSettleAgreements && spent >= p_.settle_min_ms) || spent >= p_.settle_ms) break;
    }
    return ms_since(start);
  }

  // A call's inputs and the cache flush before it. CUDA: the inputs, then the flush, which evicts
  // them (none with the kernel prologue, which flushes before each kernel). CPU (when the host can
  // evict): the flush, then the inputs, written and evicted just before the call's mark, as cold as
  // before: inputs written ahead of a flush of milliseconds sat readable by the candidate's own
  // threads for that long, which could compute the call's output beside the loop, unseen by its
  // clock (adversarial case precompute_during_flush_cpu).
  void inputs_and_flush(const TimedCall& c, bool counted) {
    if (!inputs_after_flush_) {
      apply_inputs(c);
      if (!each_kernel_) ctx_.backend.flush(p_.flush_bytes, counted);
      return;
    }
    ctx_.backend.flush(p_.flush_bytes, counted);
    apply_inputs(c);
    for (std::size_t i = 0; i < p_.targets.size(); ++i)
      for (const CopyRun& run : p_.whole[i])
        for (std::size_t r = 0; r < run.rows; ++r)
          ctx_.backend.evict(p_.targets[i].tensor.data + run.offset + r * run.pitch, run.width);
  }

  // Mode call: one mark pair per call, the device idle before each (inputs and flush done);
  // `marked`: hone_marker after each call's end mark (kernel counters attribute by it). The flush
  // reads the L2 (hone_flush_l2, as plain events flush) unless `counted`: the counted calls'
  // flush evicts the code too (hone_flush, as ncu flushes), and with the kernel prologue
  // (flush_each_kernel) runs before each of the call's kernels instead of once before the call.
  std::vector<double> run_calls(const std::vector<TimedCall>& calls, const char* what, bool marked = false,
                                bool counted = false) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const hone::ArgDesc* args = packs_[calls[i].slot].prepare();
      inputs_and_flush(calls[i], counted);
      ctx_.backend.synchronize();
      ctx_.backend.mark(2 * i);
      if (each_kernel_) arm_prologue(true);
      call(calls[i].slot, args, what, i);
      if (each_kernel_) arm_prologue(false);
      ctx_.backend.mark(2 * i + 1);
      if (marked) ctx_.backend.marker();
    }
    synchronize_after(ctx_.backend, what);
    return read_times(calls.size());
  }

  // Mode call with kernel_counters: the calls under the Range Profiler (auto range, kernel
  // replay: each kernel is a range, run alone), counting gpu__time_duration.sum, the GPU
  // duration ncu reports, for every kernel: hone's flush, the call's kernels, hone's marker. The
  // events around the calls then time the profiler too; the judge reads only the ranges.
  std::vector<double> run_counted() {
    bool counting = false;
    try {
      cupti_.load();
      counting = begin_counters();
    } catch (const OpError& e) {
      counters_error_ = e.what();
    }
    std::vector<double> times;
    try {
      times = run_calls(p_.schedule, "counted call", counting, true);
    } catch (...) {
      if (counting) (void)cupti_.end();
      throw;
    }
    if (counting) end_counters();
    return times;
  }

  // The Range Profiler, with the kernel prologue where each kernel is to be flushed; where the
  // prologue cannot be had, each call is flushed once and kernel_flush_error says why.
  bool begin_counters() {
    nlohmann::json request = counter_request(p_.kernel_counters);
    if (p_.flush_each_kernel && !cupti_.has_kernel_prologue()) {
      kernel_flush_error_ = "this libhone_cupti.so has no hone_cupti_kernel_prologue";
    } else if (p_.flush_each_kernel) {
      prologue_args_ = ctx_.backend.flush_args(p_.flush_bytes);
      request["kernel_prologue"] = true;
      const nlohmann::json begun = cupti_.begin(request);
      if (begun.value("ok", false)) {
        each_kernel_ = true;
        return true;
      }
      kernel_flush_error_ = "hone_cupti_begin (kernel prologue): " + cupti_error_text(begun);
      request.erase("kernel_prologue");
    }
    const nlohmann::json begun = cupti_.begin(request);
    if (begun.value("ok", false)) return true;
    counters_error_ = "hone_cupti_begin: " + cupti_error_text(begun);
    return false;
  }

  void arm_prologue(bool on) {
    const nlohmann::json answer = cupti_.kernel_prologue(on ? hone_harness_flush_prologue : nullptr, &prologue_args_);
    if (!answer.value("ok", false))
      throw OpError(ErrorKind::Internal, "hone_cupti_kernel_prologue: " + cupti_error_text(answer));
  }

  void end_counters() {
    const nlohmann::json ended = cupti_.end();
    if (ended.contains("kernel_prologue")) kernel_prologue_ = ended["kernel_prologue"];
    if (!ended.value("ok", false)) {
      counters_error_ = "hone_cupti_end: " + cupti_error_text(ended);
      return;
    }
    counter_seconds_ = ended.value("seconds", nlohmann::json());
    const nlohmann::json& m = ended.value("metrics", nlohmann::json::object());
    if (const std::size_t dropped = m.value("ranges_dropped", std::size_t{0}); dropped > 0) {
      counters_error_ = "the Range Profiler dropped " + std::to_string(dropped) + " kernel ranges (more than " +
                        std::to_string(p_.kernel_counters) + " kernels)";
      return;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : m.value("ranges", nlohmann::json::array())) {
      const nlohmann::json& values = r.value("values", nlohmann::json::object());
      if (!values.contains(kGpuTime) || !values[kGpuTime].is_number()) {
        counters_error_ = "the Range Profiler gave no " + std::string(kGpuTime) + " for kernel " + r.value("name", std::string("?"));
        return;
      }
      out.push_back({{"name", r.value("name", std::string())}, {"gpu_time_us", values[kGpuTime].get<double>() / 1000.0}});
    }
    counters_ = out;
  }

  std::vector<double> read_times(std::size_t n) {
    std::vector<double> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(ctx_.backend.elapsed_us(2 * i, 2 * i + 1));
    return out;
  }

  // Mode device: every call enqueued behind hone_hold, released by the judge after "enqueued".
  // With kernel_records, the calls run under the activity trace and hone_marker follows each.
  std::vector<double> run_held(bool& timed_out, Clock::time_point started) {
    const bool records = p_.kernel_records && begin_records();
    release_word()->store(0, std::memory_order_seq_cst);
    try {
      ctx_.backend.hold(p_.release->data, p_.spin_timeout_ms);
      holding_ = true;
      for (std::size_t i = 0; i < p_.schedule.size(); ++i) {
        const hone::ArgDesc* args = packs_[p_.schedule[i].slot].prepare();
        apply_inputs(p_.schedule[i]);
        ctx_.backend.flush(p_.flush_bytes, true);
        ctx_.backend.mark(2 * i);
        call(p_.schedule[i].slot, args, "timed call", i);
        ctx_.backend.mark(2 * i + 1);
        if (records) ctx_.backend.marker();
      }
    } catch (...) {
      release_hold();
      if (records) (void)cupti_.end();
      throw;
    }
    enqueue_s_ = ms_since(started) / 1000.0;
    ctx_.notify({{"id", ctx_.id}, {"event", "enqueued"}});
    const Clock::time_point notified = Clock::now();
    try {
      synchronize_after(ctx_.backend, "timed calls");
    } catch (...) {
      if (records) (void)cupti_.end();
      throw;
    }
    sync_s_ = ms_since(notified) / 1000.0;
    holding_ = false;
    // The calls are done: the judge's clock stops here and it copies the outputs now, while the
    // records are collected (their collection is no call's work).
    ctx_.notify({{"id", ctx_.id}, {"event", "finished"}});
    timed_out = ctx_.backend.hold_timed_out();
    const Clock::time_point synced = Clock::now();
    if (records) end_records();
    records_s_ = ms_since(synced) / 1000.0;
    return read_times(p_.schedule.size());
  }

  // The activity trace, or why not (the judge then takes the events): false when it did not begin.
  bool begin_records() {
    try {
      cupti_.load();
    } catch (const OpError& e) {
      records_error_ = e.what();
      return false;
    }
    const nlohmann::json begun = cupti_.begin({{"activity", true}});
    if (!begun.value("ok", false)) records_error_ = "hone_cupti_begin: " + cupti_error_text(begun);
    return records_error_.empty();
  }

  void end_records() {
    const nlohmann::json ended = cupti_.end();
    if (!ended.value("ok", false)) {
      records_error_ = "hone_cupti_end: " + cupti_error_text(ended);
      return;
    }
    const nlohmann::json& trace = ended.value("activity", nlohmann::json::object());
    if (trace.value("dropped_records", std::size_t{0}) > 0) {
      records_error_ = "CUPTI dropped " + std::to_string(trace.value("dropped_records", std::size_t{0})) + " activity records";
      return;
    }
    nlohmann::json caller_stream = nullptr;
    activities_ = activities_json(trace, caller_stream);
  }

  std::atomic_ref<std::uint32_t>* release_word() {
    if (!release_) release_.emplace(*reinterpret_cast<std::uint32_t*>(p_.release->host_data()));
    return &*release_;
  }

  // A failure while the stream is held: release it ourselves rather than wait for the timeout.
  void release_hold() {
    if (holding_) release_word()->store(1, std::memory_order_seq_cst);
    holding_ = false;
  }

  const TimePlan& p_;
  OpContext& ctx_;
  CuptiLibrary& cupti_;
  nlohmann::json activities_;   // kernel_records: the held calls' activities
  nlohmann::json counters_;     // kernel_counters: [{"name", "gpu_time_us"}] per kernel, in launch order
  std::string counters_error_;  // kernel_counters: why there are none
  nlohmann::json counter_seconds_;  // kernel_counters: the profiler's setup, region and collection
  std::string records_error_;   // kernel_records: why there are none
  bool inputs_after_flush_ = false;  // CPU: each call's inputs written after its flush, then evicted
  bool each_kernel_ = false;    // the counted calls (the op's last) are flushed by the prologue before each kernel
  hone_harness_flush_args prologue_args_{};
  nlohmann::json kernel_prologue_;  // its launches and failures (hone_cupti_end's "kernel_prologue")
  std::string kernel_flush_error_;  // why each call was flushed once instead
  std::vector<ArgPack> packs_;
  bool holding_ = false;
  double enqueue_s_ = 0;
  double sync_s_ = 0;     // mode device: from "enqueued" until the calls finished (the judge releases in between)
  double records_s_ = 0;  // mode device: collecting the activity records after that
  std::optional<std::atomic_ref<std::uint32_t>> release_;
};

}  // namespace

nlohmann::json counter_request(std::size_t max_ranges) {
  return {{"metrics", nlohmann::json::array({kGpuTime})}, {"max_ranges", max_ranges}, {"max_passes", 1}};
}

nlohmann::json run_time(const nlohmann::json& request, OpContext& ctx, CuptiLibrary& cupti) {
  const TimePlan plan = plan_time(request, ctx.arenas, ctx.backend);
  log_line("time (mode " + std::string(plan.device_mode ? "device" : "call") + ", " +
           std::to_string(plan.schedule.size()) + " calls, " + std::to_string(plan.warmup) + " warm-up)");
  TimedLoop loop(plan, ctx, cupti);
  return loop.run();
}

}  // namespace hone::runner
