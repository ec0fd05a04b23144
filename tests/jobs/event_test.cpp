#include "jobs/event.hpp"

#include <gtest/gtest.h>

namespace {

using jobs::ParsedEntry;
using Verdict = ParsedEntry::Verdict;
using Fields = std::vector<std::pair<std::string, std::string>>;

ParsedEntry parse(const Fields& f) {
    return jobs::parse_event("1-0", f);
}

TEST(Event, ValidMinimal) {
    auto p = parse({{"file_id", "f1"}, {"storage_key", "ab/f1.blob"}});
    ASSERT_EQ(p.verdict, Verdict::ok) << p.reason;
    EXPECT_EQ(p.event.file_id, "f1");
    EXPECT_EQ(p.event.storage_key, "ab/f1.blob");
    EXPECT_TRUE(p.event.step_text);
    EXPECT_TRUE(p.event.step_thumbnails);
    EXPECT_EQ(p.event.steps, "text,thumbnails");
    EXPECT_EQ(p.event.entry_id, "1-0");
}

TEST(Event, AllFieldsAndUnknownIgnored) {
    auto p = parse({{"file_id", "a.b_c:d-e"},
                    {"storage_key", "x/y/z.pdf"},
                    {"content_type", "application/pdf"},
                    {"size", "1234"},
                    {"sha256", std::string(64, 'A')},
                    {"name", "../../etc/passwd"},
                    {"owner", "u1"},
                    {"steps", "thumbnails"},
                    {"colour", "blue"}});
    ASSERT_EQ(p.verdict, Verdict::ok) << p.reason;
    EXPECT_EQ(*p.event.size, 1234u);
    EXPECT_EQ(p.event.sha256, std::string(64, 'a'));
    EXPECT_EQ(p.event.name, "../../etc/passwd"); // kept, never used as a path
    EXPECT_FALSE(p.event.step_text);
    EXPECT_TRUE(p.event.step_thumbnails);
    EXPECT_EQ(p.event.steps, "thumbnails");
}

TEST(Event, FileIdRules) {
    EXPECT_TRUE(jobs::valid_file_id("a"));
    EXPECT_TRUE(jobs::valid_file_id("0" + std::string(127, 'x')));
    EXPECT_FALSE(jobs::valid_file_id("0" + std::string(128, 'x')));
    EXPECT_FALSE(jobs::valid_file_id(""));
    EXPECT_FALSE(jobs::valid_file_id("-a"));
    EXPECT_FALSE(jobs::valid_file_id(".a"));
    EXPECT_FALSE(jobs::valid_file_id("bad id!"));
    EXPECT_FALSE(jobs::valid_file_id("a/b"));
    EXPECT_FALSE(jobs::valid_file_id("é"));
}

TEST(Event, BadFileIdGoesToDeadLetter) {
    EXPECT_EQ(parse({{"storage_key", "x"}}).verdict, Verdict::dead_letter);
    auto p = parse({{"file_id", "bad id!"}, {"storage_key", "x"}});
    EXPECT_EQ(p.verdict, Verdict::dead_letter);
    EXPECT_FALSE(p.reason.empty());
}

TEST(Event, StorageKeyRules) {
    EXPECT_EQ(jobs::storage_key_problem("a"), "");
    EXPECT_EQ(jobs::storage_key_problem("a/b.c/d-e_f"), "");
    EXPECT_EQ(jobs::storage_key_problem("..a/b..c"), "");
    for (const std::string& bad : std::vector<std::string>{"", "/etc/passwd", "../x", "a/../b", "a/./b", "a//b", "a/",
                                                           "a\\b", "a b", "a/\xc3\xa9", std::string("a\0b", 3)}) {
        EXPECT_NE(jobs::storage_key_problem(bad), "") << bad;
    }
    EXPECT_EQ(jobs::storage_key_problem(std::string(1024, 'a')), "");
    EXPECT_NE(jobs::storage_key_problem(std::string(1025, 'a')), "");
}

TEST(Event, BadOtherFieldsAreInvalidEvent) {
    for (const Fields& f : std::vector<Fields>{
             {{"file_id", "f"}},
             {{"file_id", "f"}, {"storage_key", "../../etc/passwd"}},
             {{"file_id", "f"}, {"storage_key", "/etc/passwd"}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"size", "-1"}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"size", "12x"}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"size", "99999999999999999999999"}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"sha256", "abc"}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"sha256", std::string(64, 'g')}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"steps", "ocr"}},
             {{"file_id", "f"}, {"storage_key", "k"}, {"steps", ""}},
         }) {
        auto p = parse(f);
        EXPECT_EQ(p.verdict, Verdict::invalid_event) << f.back().first << "=" << f.back().second;
        EXPECT_EQ(p.event.file_id, "f");
        EXPECT_FALSE(p.reason.empty());
    }
}

TEST(Event, DeleteNeedsOnlyTheFileId) {
    auto d = jobs::parse_event("2-0", {{"file_id", "f1"}, {"op", "delete"}});
    EXPECT_EQ(d.verdict, jobs::ParsedEntry::Verdict::ok);
    EXPECT_TRUE(d.event.is_delete);
    EXPECT_EQ(d.event.storage_key, "");
    d = jobs::parse_event("2-0", {{"file_id", "f1"}, {"op", "delete"}, {"storage_key", "up/f1"}});
    EXPECT_EQ(d.event.storage_key, "up/f1");
    d = jobs::parse_event("2-0", {{"file_id", "f1"}, {"op", "delete"}, {"storage_key", "../x"}});
    EXPECT_EQ(d.verdict, jobs::ParsedEntry::Verdict::ok); // a bad key is ignored, never followed
    EXPECT_EQ(d.event.storage_key, "");
    d = jobs::parse_event("2-0", {{"file_id", "f1"}, {"op", "process"}, {"storage_key", "k"}});
    EXPECT_FALSE(d.event.is_delete);
    EXPECT_EQ(d.verdict, jobs::ParsedEntry::Verdict::ok);
    d = jobs::parse_event("2-0", {{"file_id", "f1"}, {"op", "erase"}, {"storage_key", "k"}});
    EXPECT_EQ(d.verdict, jobs::ParsedEntry::Verdict::invalid_event);
    EXPECT_FALSE(d.reason.empty());
    d = jobs::parse_event("2-0", {{"op", "delete"}});
    EXPECT_EQ(d.verdict, jobs::ParsedEntry::Verdict::dead_letter);
}

TEST(Event, TextFieldsAreCappedAndUnknownFieldsIgnored) {
    const std::string at_cap(jobs::k_max_text_field_bytes, 'a'), over(jobs::k_max_text_field_bytes + 1, 'a');
    for (const char* field : {"name", "owner", "content_type"}) {
        auto p = parse({{"file_id", "f"}, {"storage_key", "k"}, {field, at_cap}});
        EXPECT_EQ(p.verdict, Verdict::ok) << field;
        p = parse({{"file_id", "f"}, {"storage_key", "k"}, {field, over}});
        EXPECT_EQ(p.verdict, Verdict::invalid_event) << field;
        EXPECT_NE(p.reason.find(std::string("The ") + field + " field"), std::string::npos) << p.reason;
        EXPECT_TRUE(p.event.name.empty() && p.event.owner.empty() && p.event.declared_content_type.empty());
    }
    auto p = parse({{"file_id", "f"}, {"storage_key", "k"}, {"note", std::string(1 << 20, 'x')}});
    EXPECT_EQ(p.verdict, Verdict::ok);
}

TEST(Event, StepsList) {
    auto p = parse({{"file_id", "f"}, {"storage_key", "k"}, {"steps", "thumbnails, text"}});
    ASSERT_EQ(p.verdict, Verdict::ok);
    EXPECT_EQ(p.event.steps, "text,thumbnails");
    p = parse({{"file_id", "f"}, {"storage_key", "k"}, {"steps", "text"}});
    EXPECT_TRUE(p.event.step_text);
    EXPECT_FALSE(p.event.step_thumbnails);
}

} // namespace

namespace {

TEST(Event, OcrLangsKeptWhenWellFormed) {
    for (const std::string langs : {"deu", "eng+fra", "chi_sim+eng", "xxx"}) {
        auto p = parse({{"file_id", "f1"}, {"storage_key", "k"}, {"ocr_langs", langs}});
        ASSERT_EQ(p.verdict, Verdict::ok) << langs << ": " << p.reason;
        EXPECT_EQ(p.event.ocr_langs, langs); // whether it is installed is the worker's check
    }
    EXPECT_EQ(parse({{"file_id", "f1"}, {"storage_key", "k"}}).event.ocr_langs, "");
}

TEST(Event, MalformedOcrLangsAreInvalidEvent) {
    for (const std::string langs : std::vector<std::string>{"", "eng+", "+eng", "eng++deu", "../x", "/tmp/eng", "ENG",
                                                            "eng deu", std::string(33, 'a'), "a+b+c+d+e+f+g+h+i"}) {
        auto p = parse({{"file_id", "f1"}, {"storage_key", "k"}, {"ocr_langs", langs}});
        EXPECT_EQ(p.verdict, Verdict::invalid_event) << langs;
        EXPECT_NE(p.reason.find("ocr_langs"), std::string::npos) << p.reason;
    }
}

} // namespace
