// RTF, HTML and e-mail made by the test: the exact text, and what must never appear in it.
#include "extractors/document_type.hpp"
#include "extractors/email_text.hpp"
#include "extractors/html_text.hpp"
#include "extractors/registry.hpp"
#include "extractors/rtf_text.hpp"
#include "extractors/sniff/content_type.hpp"

#include <gtest/gtest.h>

namespace {

std::span<const unsigned char> span_of(const std::string& s) {
    return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// Detected (and refined) as the helper does, through the registry's row; the type and the
// method are checked, and the result has no error.
extractors::TextResult through_registry(const std::string& bytes, const std::string& type, const std::string& method) {
    const std::string mime = extractors::refine_content_type(
        span_of(bytes), extractors::detect_content_type_buffer(bytes.data(), bytes.size()));
    EXPECT_EQ(mime, type);
    const extractors::Extractor* row = extractors::find_extractor(mime);
    if (row == nullptr) return {};
    auto r = row->extract(span_of(bytes), mime, {});
    EXPECT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, method);
    return r;
}

TEST(RtfText, CodePageEscapesUnicodeAndNoControlWords) {
    const std::string rtf =
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Times New Roman;}}"
        "{\\colortbl;\\red255\\green0\\blue0;}{\\stylesheet{\\s0 Normal;}}{\\info{\\title Secret title}}"
        "{\\*\\generator Writer;}\\pard\\plain Caf\\'e9 cr\\u232?me\\par "
        "Tab\\tab here{\\pict\\pngblip 89504e470d0a}\\par\n"
        "\\u-3913?\\uc2\\u8364\\'80\\'80 euro\\par}";
    const auto r = through_registry(rtf, "text/rtf", "document");
    EXPECT_EQ(r.text, "Caf\xC3\xA9 cr\xC3\xA8me\nTab\there\n\xEF\x82\xB7\xE2\x82\xAC euro");
}

TEST(RtfText, NotRtfIsCorrupt) {
    const auto r = extractors::extract_rtf_text(span_of(std::string("hello")), {});
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::corrupt_file);
}

TEST(HtmlText, VisibleTextWithoutScriptsStylesOrTags) {
    const std::string html = "<!DOCTYPE html><html><head><title>Page</title><style>body{color:red}</style>"
                             "<script>var secret = 1;</script></head><body><h1>Hello &amp; welcome</h1>"
                             "<p>Caf&eacute; &#8364;5 <b>bold</b>\n   text</p><script>alert('x')</script>"
                             "<ul><li>one</li><li>two</li></ul><table><tr><td>a</td><td>b</td></tr></table>"
                             "<div>x<br>y</div></body></html>";
    const auto r = through_registry(html, "text/html", "markup");
    EXPECT_EQ(r.text, "Hello & welcome\nCaf\xC3\xA9 \xE2\x82\xAC"
                      "5 bold text\none\ntwo\na\tb\nx\ny");
}

TEST(HtmlText, DeepNestingIsBoundedNotACrash) {
    std::string html = "<p>top</p>";
    for (int i = 0; i < 200000; ++i) html += "<div>";
    html += "deep";
    core::Options options;
    options.max_xml_depth = 50;
    const std::string text = extractors::html_visible_text(html, options);
    EXPECT_EQ(text.find("deep"), std::string::npos);
    EXPECT_EQ(text.substr(0, 3), "top");
}

TEST(HtmlText, Utf8WithoutACharsetStaysUtf8) {
    EXPECT_EQ(extractors::html_visible_text("<p>na\xC3\xAFve</p>", {}), "na\xC3\xAFve");
}

const std::string k_email = "From: =?UTF-8?B?SsO8cmdlbg==?= <juergen@example.com>\r\n"
                            "To: Ann <ann@example.com>, bob@example.com\r\n"
                            "Cc: carol@example.com\r\n"
                            "Date: Tue, 1 Dec 2026 10:00:00 +0100\r\n"
                            "Subject: =?ISO-8859-1?Q?R=E9union_d=E9cembre?=\r\n"
                            "MIME-Version: 1.0\r\n"
                            "Content-Type: multipart/mixed; boundary=\"XX\"\r\n\r\n"
                            "--XX\r\n"
                            "Content-Type: text/plain; charset=ISO-8859-1\r\n"
                            "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
                            "Voil=E0 le r=E9sum=E9.\r\n"
                            "--XX\r\n"
                            "Content-Type: application/pdf; name=\"report.pdf\"\r\n"
                            "Content-Disposition: attachment; filename=\"report.pdf\"\r\n"
                            "Content-Transfer-Encoding: base64\r\n\r\n"
                            "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K\r\n"
                            "--XX--\r\n";

TEST(EmailText, HeadersDecodedBodyConvertedAttachmentsNamedNoBase64) {
    const auto r = through_registry(k_email, "message/rfc822", "document");
    EXPECT_EQ(r.text, "From: J\xC3\xBCrgen <juergen@example.com>\n"
                      "To: Ann <ann@example.com>, bob@example.com\n"
                      "Cc: carol@example.com\n"
                      "Date: Tue, 1 Dec 2026 10:00:00 +0100\n"
                      "Subject: R\xC3\xA9union d\xC3\xA9"
                      "cembre\n\n"
                      "Voil\xC3\xA0 le r\xC3\xA9sum\xC3\xA9.\n\n"
                      "Attachment: report.pdf");
    EXPECT_EQ(r.text.find("JVBERi0"), std::string::npos);
}

TEST(EmailText, HtmlOnlyBodyGivesItsVisibleText) {
    const std::string mail = "From: a@example.com\nSubject: Hi\nContent-Type: text/html; charset=utf-8\n\n"
                             "<html><head><style>p{}</style></head><body><p>Hello <b>there</b></p></body></html>\n";
    const auto r = extractors::extract_email_text(span_of(mail), false, {});
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.text, "From: a@example.com\nSubject: Hi\n\nHello there");
}

TEST(EmailText, MboxMessagesSeparatedByFormFeeds) {
    const std::string mbox =
        "From a@example.com Tue Dec  1 10:00:00 2026\nFrom: a@example.com\nSubject: One\n\nfirst\n\n"
        "From b@example.com Tue Dec  1 11:00:00 2026\nFrom: b@example.com\nSubject: Two\n\nsecond\n";
    const auto r = through_registry(mbox, "application/mbox", "document");
    EXPECT_EQ(r.text, "From: a@example.com\nSubject: One\n\nfirst\fFrom: b@example.com\nSubject: Two\n\nsecond");
}

} // namespace
