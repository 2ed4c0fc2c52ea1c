// `waitroom import cloudflare` reads strictly: every field's type and range as Cloudflare's
// API documents them, times with their offsets, API error responses reported as such, names
// without control or bidirectional-override characters. Errors exit 2 naming the input file
// and the field, never the output file (which is not written).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using outcome = waitroom::testing_support::cli_outcome;
using waitroom::testing_support::slurp;

fs::path dir() {
  return waitroom::testing_support::process_temp_dir("import_strict");
}

std::string sample(const std::string& name) {
  return std::string(WAITROOM_SOURCE_DIR) + "/scenarios/cloudflare/" + name;
}

json sample_json(const std::string& name) {
  return json::parse(slurp(sample(name)));
}

fs::path write(const std::string& name, const json& j) {
  const fs::path p = dir() / name;
  std::ofstream(p) << j.dump(2);
  return p;
}

fs::path write_text(const std::string& name, const std::string& text) {
  const fs::path p = dir() / name;
  std::ofstream(p) << text;
  return p;
}

struct imported {
  outcome o;
  fs::path out;
};

// Imports `room` (and `event` when given) with the sample arrivals, to a fresh output path.
imported import(const fs::path& room, const std::optional<fs::path>& event = std::nullopt) {
  static int n = 0;
  const fs::path out = dir() / ("scenario" + std::to_string(n++) + ".json");
  std::string args = "import cloudflare " + room.string() + " --arrivals " +
                     sample("arrivals.json") + " --out " + out.string();
  if (event) args += " --event " + event->string();
  return {waitroom::testing_support::run_cli("import_strict", args), out};
}

imported import_room(const std::function<void(json&)>& edit) {
  json room = sample_json("room.json");
  edit(room["result"]);
  return import(write("room.json", room));
}

imported import_event(const std::function<void(json&)>& edit) {
  json event = sample_json("event.json");
  edit(event["result"]);
  return import(sample("room.json"), write("event.json", event));
}

// Exit 2, naming `file` and `field`, never the output file, which is not written.
void expect_refused(const imported& r, const std::string& file, const std::string& field) {
  EXPECT_EQ(r.o.code, 2) << r.o.err;
  EXPECT_NE(r.o.err.find(file + ": /result/" + field), std::string::npos) << r.o.err;
  EXPECT_EQ(r.o.err.find(r.out.filename().string()), std::string::npos) << r.o.err;
  EXPECT_FALSE(fs::exists(r.out));
}

std::string in(const std::string& name) {
  return (dir() / name).string();
}

}  // namespace

TEST(ImportStrict, AStringWhereTheApiHasAnArrayIsRefused) {
  auto r = import_room([](json& j) { j["enabled_origin_commands"] = "revoke"; });
  expect_refused(r, in("room.json"), "enabled_origin_commands");
  EXPECT_NE(r.o.err.find("an array of origin commands"), std::string::npos) << r.o.err;

  auto unknown = import_room([](json& j) { j["enabled_origin_commands"] = {"revoke", "kick"}; });
  expect_refused(unknown, in("room.json"), "enabled_origin_commands/1");
}

TEST(ImportStrict, AStringWhereTheApiHasABooleanIsRefused) {
  auto renewal = import_room([](json& j) { j["disable_session_renewal"] = "false"; });
  expect_refused(renewal, in("room.json"), "disable_session_renewal");
  EXPECT_NE(renewal.o.err.find("true or false"), std::string::npos) << renewal.o.err;

  auto shuffle = import_event([](json& j) { j["shuffle_at_event_start"] = "yes"; });
  expect_refused(shuffle, in("event.json"), "shuffle_at_event_start");

  auto queue_all = import_room([](json& j) { j["queue_all"] = 1; });
  expect_refused(queue_all, in("room.json"), "queue_all");
}

TEST(ImportStrict, ATimeZoneOffsetIsApplied) {
  // 11:00+01:00 is 10:00Z: ten minutes after a prequeue from 09:50Z.
  auto r = import_event([](json& j) {
    j["event_start_time"] = "2026-12-05T11:00:00+01:00";
    j["event_end_time"] = "2026-12-05T06:00:00-05:00";  // 11:00Z
  });
  ASSERT_EQ(r.o.code, 0) << r.o.err;
  const auto s = json::parse(slurp(r.out));
  EXPECT_EQ(s["release"]["event_start_s"], 600.0);
  EXPECT_NE(r.o.err.find("its end (4200 s)"), std::string::npos) << r.o.err;

  // Fractions of a second count too.
  auto frac = import_event([](json& j) { j["event_start_time"] = "2026-12-05T10:00:00.250Z"; });
  ASSERT_EQ(frac.o.code, 0) << frac.o.err;
  EXPECT_EQ(json::parse(slurp(frac.out))["release"]["event_start_s"], 600.25);
}

TEST(ImportStrict, ImpossibleDatesAndTimeFieldsAreRefused) {
  for (const char* bad :
       {"2026-02-30T10:00:00Z", "2026-12-05T10:00:61Z", "2026-13-05T10:00:00Z",
        "2026-12-05T24:00:00Z", "2026-12-05T10:60:00Z", "2026-12-05T10:00:00",
        "2026-12-05 10:00:00Z", "2026-12-05T10:00:00+0100", "2026-12-05T10:00:00Zjunk"}) {
    auto r = import_event([&](json& j) { j["event_start_time"] = bad; });
    expect_refused(r, in("event.json"), "event_start_time");
    EXPECT_NE(r.o.err.find("RFC 3339"), std::string::npos) << bad << ": " << r.o.err;
  }
  auto feb = import_event([](json& j) { j["event_start_time"] = "2026-02-30T10:00:00Z"; });
  EXPECT_NE(feb.o.err.find("2026-02 has no day 30"), std::string::npos) << feb.o.err;
  auto sec = import_event([](json& j) { j["event_start_time"] = "2026-12-05T10:00:61Z"; });
  EXPECT_NE(sec.o.err.find("second 61"), std::string::npos) << sec.o.err;
  // 2028 is a leap year.
  auto leap = import_event([](json& j) {
    j["prequeue_start_time"] = "2028-02-29T09:50:00Z";
    j["event_start_time"] = "2028-02-29T10:00:00Z";
    j["event_end_time"] = "2028-02-29T11:00:00Z";
  });
  EXPECT_EQ(leap.o.code, 0) << leap.o.err;
  // Metadata times are checked as well.
  auto created = import_room([](json& j) { j["created_on"] = "2026-11-31T10:00:00Z"; });
  expect_refused(created, in("room.json"), "created_on");
}

TEST(ImportStrict, CloudflaresRangesAreEnforced) {
  auto rate = import_room([](json& j) { j["new_users_per_minute"] = 2000; });  // > 1500
  expect_refused(rate, in("room.json"), "new_users_per_minute");
  EXPECT_NE(rate.o.err.find("at most total_active_users (1500"), std::string::npos) << rate.o.err;

  auto session = import_room([](json& j) { j["session_duration"] = 100; });
  expect_refused(session, in("room.json"), "session_duration");
  EXPECT_NE(session.o.err.find("from 1 to 30"), std::string::npos) << session.o.err;
  expect_refused(import_room([](json& j) { j["session_duration"] = 0; }), in("room.json"),
                 "session_duration");
  expect_refused(import_room([](json& j) { j["session_duration"] = 5.5; }), in("room.json"),
                 "session_duration");

  auto few = import_room([](json& j) { j["total_active_users"] = 150; });
  expect_refused(few, in("room.json"), "total_active_users");
  EXPECT_NE(few.o.err.find("from 200 to 2147483647"), std::string::npos) << few.o.err;
  expect_refused(import_room([](json& j) { j["total_active_users"] = 2147483648LL; }),
                 in("room.json"), "total_active_users");
  expect_refused(import_room([](json& j) { j["new_users_per_minute"] = 199; }), in("room.json"),
                 "new_users_per_minute");
  expect_refused(import_room([](json& j) { j["queueing_method"] = "lifo"; }), in("room.json"),
                 "queueing_method");
  expect_refused(import_room([](json& j) { j["queueing_status_code"] = 201; }), in("room.json"),
                 "queueing_status_code");
  expect_refused(import_room([](json& j) { j["turnstile_mode"] = "loud"; }), in("room.json"),
                 "turnstile_mode");
  expect_refused(import_room([](json& j) { j["cookie_attributes"]["samesite"] = "sometimes"; }),
                 in("room.json"), "cookie_attributes/samesite");
  expect_refused(import_room([](json& j) { j["host"] = 7; }), in("room.json"), "host");
}

TEST(ImportStrict, AnEventAtFaultIsNamedNotTheRoom) {
  auto session = import_event([](json& j) { j["session_duration"] = 100; });
  expect_refused(session, in("event.json"), "session_duration");
  EXPECT_EQ(session.o.err.find("room.json"), std::string::npos) << session.o.err;

  auto rate = import_event([](json& j) {
    j["total_active_users"] = 300;
    j["new_users_per_minute"] = 400;
  });
  expect_refused(rate, in("event.json"), "new_users_per_minute");
  EXPECT_NE(rate.o.err.find("event.json: /result/total_active_users"), std::string::npos)
      << rate.o.err;

  auto alone = import_event([](json& j) { j["total_active_users"] = 300; });
  expect_refused(alone, in("event.json"), "new_users_per_minute");

  auto short_prequeue =
      import_event([](json& j) { j["prequeue_start_time"] = "2026-12-05T09:58:00Z"; });
  expect_refused(short_prequeue, in("event.json"), "prequeue_start_time");
  auto short_event = import_event([](json& j) { j["event_end_time"] = "2026-12-05T10:00:30Z"; });
  expect_refused(short_event, in("event.json"), "event_end_time");
  auto no_prequeue = import_event([](json& j) { j["prequeue_start_time"] = nullptr; });
  expect_refused(no_prequeue, in("event.json"), "shuffle_at_event_start");
}

TEST(ImportStrict, AnApiErrorResponseIsReportedAsOne) {
  const auto room = write_text("room.json", R"({
    "result": null, "success": false,
    "errors": [{"code": 10000, "message": "Authentication error"}], "messages": []})");
  auto r = import(room);
  EXPECT_EQ(r.o.code, 2) << r.o.err;
  EXPECT_NE(r.o.err.find(room.string()), std::string::npos) << r.o.err;
  EXPECT_NE(r.o.err.find("API error response"), std::string::npos) << r.o.err;
  EXPECT_NE(r.o.err.find("10000 \"Authentication error\""), std::string::npos) << r.o.err;
  EXPECT_EQ(r.o.err.find("total_active_users"), std::string::npos) << r.o.err;
  EXPECT_FALSE(fs::exists(r.out));

  // A list response holds several rooms: one is needed.
  json list = sample_json("room.json");
  list["result"] = json::array({list["result"], list["result"]});
  auto l = import(write("room.json", list));
  EXPECT_EQ(l.o.code, 2) << l.o.err;
  EXPECT_NE(l.o.err.find("/result: expected one waiting room object, found an array of 2"),
            std::string::npos)
      << l.o.err;
}

TEST(ImportStrict, EveryUnmappedFieldIsNamedWithItsFile) {
  json room = sample_json("room.json");
  room["result"]["next_event_start_time"] = "2026-12-05T10:00:00.000Z";
  room["result"]["surprise"] = 1;
  const auto path = write("room.json", room);
  auto r = import(path);
  ASSERT_EQ(r.o.code, 0) << r.o.err;
  for (const char* field : {"id", "created_on", "modified_on", "host", "custom_page_html"})
    EXPECT_NE(r.o.err.find(path.string() + ": /result/" + field + ": no equivalent"),
              std::string::npos)
        << field << "\n"
        << r.o.err;
  EXPECT_NE(r.o.err.find(path.string() + ": /errors, /messages, /success: the API response's "
                                         "envelope"),
            std::string::npos)
      << r.o.err;
  EXPECT_NE(r.o.err.find("/result/surprise: not a field of Cloudflare's waiting room"),
            std::string::npos)
      << r.o.err;
  // The room's next event is not in the room object: said to be ignored.
  EXPECT_NE(r.o.err.find("/result/next_event_start_time \"2026-12-05T10:00:00.000Z\": the room "
                         "has an event coming; it is not imported (ignored)"),
            std::string::npos)
      << r.o.err;

  // With the event given, its fields are named too, and the next event is recognised.
  auto e = import(path, sample("event.json"));
  ASSERT_EQ(e.o.code, 0) << e.o.err;
  EXPECT_NE(e.o.err.find("event.json: /result/id: no equivalent"), std::string::npos) << e.o.err;
  EXPECT_NE(e.o.err.find("/result/next_event_start_time: the event given with --event"),
            std::string::npos)
      << e.o.err;
}

TEST(ImportStrict, RevokeWithOneRequestVisitsSaysTheCapBindsNothing) {
  auto r = import_room([](json&) {});
  ASSERT_EQ(r.o.code, 0) << r.o.err;
  EXPECT_NE(r.o.err.find("total_active_users (1500) binds nothing"), std::string::npos) << r.o.err;
  auto without = import_room([](json& j) { j["enabled_origin_commands"] = json::array(); });
  ASSERT_EQ(without.o.code, 0) << without.o.err;
  EXPECT_EQ(without.o.err.find("binds nothing"), std::string::npos) << without.o.err;
  EXPECT_FALSE(json::parse(slurp(without.out))["release"].contains("revoke_on_exit"));
}

TEST(ImportStrict, NamesMustBeNonEmptyWithoutControlOrBidiCharacters) {
  for (const std::string& bad :
       {std::string(""), std::string("drop\0x", 6), std::string("drop\u202Ex"),
        std::string("drop\u2066x"), std::string("drop\x1b[31m")}) {
    auto r = import_room([&](json& j) { j["name"] = bad; });
    expect_refused(r, in("room.json"), "name");
    // The value is shown escaped: the terminal's line stays in order.
    EXPECT_EQ(r.o.err.find("\u202E"), std::string::npos);
    EXPECT_EQ(r.o.err.find('\x1b'), std::string::npos);
  }
  auto empty = import_room([](json& j) { j["name"] = ""; });
  EXPECT_NE(empty.o.err.find("a non-empty name"), std::string::npos) << empty.o.err;
  auto nul = import_room([](json& j) { j["name"] = std::string("drop\0x", 6); });
  EXPECT_NE(nul.o.err.find("without control characters"), std::string::npos) << nul.o.err;
  EXPECT_NE(nul.o.err.find("U+0000"), std::string::npos) << nul.o.err;
  auto bidi = import_room([](json& j) { j["name"] = "drop\u202Ex"; });
  EXPECT_NE(bidi.o.err.find("bidirectional-override"), std::string::npos) << bidi.o.err;
  EXPECT_NE(bidi.o.err.find("\\u202e"), std::string::npos) << bidi.o.err;
  auto event = import_event([](json& j) { j["name"] = "ten\u2069"; });
  expect_refused(event, in("event.json"), "name");
}

TEST(ImportStrict, AnArrivalsErrorNamesTheArrivalsFile) {
  const auto arrivals = write_text("arrivals.json", R"({"process": "poison"})");
  const fs::path out = dir() / "never.json";
  auto r = waitroom::testing_support::run_cli(
      "import_strict", "import cloudflare " + sample("room.json") + " --arrivals " +
                           arrivals.string() + " --out " + out.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(arrivals.string() + ": /process"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("never.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}
