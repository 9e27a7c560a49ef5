// tests/store/run_store_test.cpp: the run store against real SQLite files: schema, WAL, lineage,
// persistence across reopen, concurrent writers, a newer schema, invalid UTF-8 from a model.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "store/run_store.h"

namespace fs = std::filesystem;

namespace {

class RunStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hone-store-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path db_path() const { return hone::RunStore::default_path(dir_); }

  static hone::RunRecord sample_run() {
    hone::RunRecord r;
    r.kernel_path = "/ws/relu.cu";
    r.task_path = "/ws/relu.py";
    r.device = "cuda";
    r.proposer = "llm";
    r.config = {{"samples", 4}, {"rounds", 3}, {"llm", {{"model", "deepseek-reasoner"}}}};
    r.base_source = "__global__ void k() {}\n";
    return r;
  }

  // Reads one value with a separate raw connection, as another process would.
  std::string raw_query(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }

  fs::path dir_;
};

TEST_F(RunStoreTest, CreatesTheFileInDotHoneWithWalAndASchemaVersion) {
  hone::RunStore store(db_path());
  EXPECT_TRUE(fs::exists(dir_ / ".hone" / "hone.db"));
  EXPECT_EQ(store.schema_version(), hone::kStoreSchemaVersion);
  EXPECT_EQ(raw_query("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(raw_query("PRAGMA user_version"), "1");
}

TEST_F(RunStoreTest, RunsAndCandidatesSurviveReopenWithLineageAndVerdicts) {
  std::int64_t run_id = 0, base_id = 0, child_id = 0;
  {
    hone::RunStore store(db_path());
    run_id = store.create_run(sample_run());
    hone::CandidateRecord base;
    base.run_id = run_id;
    base.origin = "baseline";
    base.source = "v0";
    base_id = store.add_candidate(base);
    hone::CandidateRecord child;
    child.run_id = run_id;
    child.parent_id = base_id;
    child.round = 1;
    child.sample = 2;
    child.origin = "llm";
    child.source = "v1";
    child.prompt = nlohmann::json::array({{{"role", "user"}, {"content", "make it faster"}}});
    child.reply = "```cuda\nv1\n```";
    child.reasoning = "thinking...";
    child.usage = {120, 800, 600, 0.0021, false};
    child.llm_seconds = 12.5;
    child_id = store.add_candidate(child);
    hone::CandidateOutcome o;
    o.status = "correct";
    hone::protocol::Verdict verdict;
    verdict.status = hone::protocol::Status::Correct;
    verdict.timing = hone::protocol::Timing{};
    verdict.timing->p50_us = 41.5;
    o.verdict = verdict;
    o.p50_us = 41.5;
    o.speedup_eager = 1.8;
    o.check_seconds = 2.25;
    store.record_outcome(child_id, o);
    store.record_recheck(child_id, true, verdict);
    auto run = *store.run(run_id);
    run.best_candidate = child_id;
    run.elapsed_s = 30;
    run.rounds_done = 1;
    run.status = "interrupted";
    run.summary = {{"best_speedup", 1.8}};
    store.update_run(run);
  }
  hone::RunStore store(db_path());
  auto run = store.run(run_id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "interrupted");
  EXPECT_EQ(run->best_candidate, child_id);
  EXPECT_EQ(run->rounds_done, 1);
  EXPECT_DOUBLE_EQ(run->elapsed_s, 30);
  EXPECT_EQ(run->config["llm"]["model"], "deepseek-reasoner");
  EXPECT_EQ(run->summary["best_speedup"], 1.8);
  EXPECT_FALSE(run->created_at.empty());

  auto cands = store.candidates(run_id);
  ASSERT_EQ(cands.size(), 2u);
  EXPECT_EQ(cands[0].id, base_id);
  EXPECT_EQ(cands[0].status, "pending");
  EXPECT_FALSE(cands[0].verdict);
  EXPECT_FALSE(cands[0].parent_id);
  const auto& c = cands[1];
  EXPECT_EQ(c.parent_id, base_id);
  EXPECT_EQ(c.round, 1);
  EXPECT_EQ(c.sample, 2);
  EXPECT_EQ(c.status, "correct");
  ASSERT_TRUE(c.verdict && c.verdict->timing);
  EXPECT_EQ(c.verdict->status, hone::protocol::Status::Correct);
  EXPECT_EQ(c.verdict->timing->p50_us, 41.5);
  EXPECT_EQ(c.p50_us, 41.5);
  EXPECT_EQ(c.speedup_eager, 1.8);
  EXPECT_FALSE(c.speedup_compile);
  EXPECT_EQ(c.recheck_passed, true);
  EXPECT_EQ(c.prompt[0]["content"], "make it faster");
  EXPECT_EQ(c.reasoning, "thinking...");
  EXPECT_EQ(c.usage.completion_tokens, 800);
  EXPECT_EQ(c.usage.reasoning_tokens, 600);
  EXPECT_DOUBLE_EQ(c.usage.cost_usd, 0.0021);
  EXPECT_DOUBLE_EQ(c.check_seconds, 2.25);
}

TEST_F(RunStoreTest, ListsRunsMostRecentFirstWithALimit) {
  hone::RunStore store(db_path());
  for (int i = 0; i < 5; ++i) store.create_run(sample_run());
  auto all = store.runs();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_GT(all[0].id, all[4].id);
  EXPECT_EQ(store.runs(2).size(), 2u);
}

TEST_F(RunStoreTest, ACandidateOfAMissingRunIsRefusedByTheForeignKey) {
  hone::RunStore store(db_path());
  hone::CandidateRecord c;
  c.run_id = 999;
  c.origin = "llm";
  c.source = "x";
  try {
    store.add_candidate(c);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("FOREIGN KEY"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(db_path().string()), std::string::npos) << e.what();
  }
}

TEST_F(RunStoreTest, ConcurrentWritersFromThreadsAndASecondConnectionLoseNothing) {
  hone::RunStore a(db_path());
  hone::RunStore b(db_path());  // another process's connection to the same file
  auto run_id = a.create_run(sample_run());
  auto writer = [&](hone::RunStore& store, int n) {
    for (int i = 0; i < n; ++i) {
      hone::CandidateRecord c;
      c.run_id = run_id;
      c.origin = "tuner";
      c.source = "s" + std::to_string(i);
      auto id = store.add_candidate(c);
      hone::CandidateOutcome o;
      o.status = "incorrect";
      o.reason = "mismatch";
      store.record_outcome(id, o);
    }
  };
  std::thread t1(writer, std::ref(a), 40), t2(writer, std::ref(a), 40), t3(writer, std::ref(b), 40);
  t1.join();
  t2.join();
  t3.join();
  auto cands = a.candidates(run_id);
  EXPECT_EQ(cands.size(), 120u);
  for (const auto& c : cands) EXPECT_EQ(c.status, "incorrect");
}

TEST_F(RunStoreTest, InvalidUtf8FromAModelIsStoredNotFatal) {
  hone::RunStore store(db_path());
  auto run_id = store.create_run(sample_run());
  hone::CandidateRecord c;
  c.run_id = run_id;
  c.origin = "llm";
  c.source = "int x;";
  c.reply = std::string("bad \xff\xfe bytes");
  c.prompt = nlohmann::json::array({{{"role", "user"}, {"content", std::string("\xc3\x28")}}});
  auto id = store.add_candidate(c);
  auto back = store.candidate(id);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->reply, c.reply);
  EXPECT_TRUE(back->prompt.is_array());
}

TEST_F(RunStoreTest, AStoreFromANewerHoneIsRefusedWithAClearError) {
  { hone::RunStore store(db_path()); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    hone::RunStore store(db_path());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("schema version 99"), std::string::npos) << msg;
    EXPECT_NE(msg.find(db_path().string()), std::string::npos) << msg;
  }
}

TEST_F(RunStoreTest, AFileThatIsNotADatabaseGivesAnErrorNamingIt) {
  fs::create_directories(db_path().parent_path());
  {
    std::FILE* f = std::fopen(db_path().c_str(), "w");
    std::fputs("this is not sqlite, just text long enough to be a header............................", f);
    std::fclose(f);
  }
  try {
    hone::RunStore store(db_path());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(db_path().string()), std::string::npos) << e.what();
  }
}

TEST_F(RunStoreTest, UpdatingAMissingRunThrows) {
  hone::RunStore store(db_path());
  auto r = sample_run();
  r.id = 42;
  EXPECT_THROW(store.update_run(r), std::runtime_error);
  EXPECT_FALSE(store.run(42));
}

}  // namespace
