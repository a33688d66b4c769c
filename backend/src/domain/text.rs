//! Text a person reads (names, titles, descriptions): one rule for every way in (the API, SCIM,
//! single sign-on claims, the command line). A control character is refused here, where the text
//! enters, because further on it breaks what carries the text: a line break in a name ends an
//! e-mail header (the `To:` line), a CSV row or a log line; a NUL cannot be stored at all.

use super::FieldIssue;

/// Not text: the C0 and C1 controls (NUL, tab, CR, LF, ESC, DEL…) and Unicode's own line and
/// paragraph separators.
fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// One line: a name or a title. Trimmed; at least one character and at most `max`; no control
/// character.
pub fn line(value: &str, max: usize) -> Result<&str, FieldIssue> {
    let value = value.trim();
    if value.is_empty() {
        Err(FieldIssue::Required)
    } else if value.chars().any(is_control) {
        Err(FieldIssue::InvalidCharacter)
    } else if value.chars().count() > max {
        Err(FieldIssue::TooLong)
    } else {
        Ok(value)
    }
}

/// Free text that may be empty and may hold line breaks and tabs (a description): trimmed, at most
/// `max` characters, no other control character.
pub fn paragraphs(value: &str, max: usize) -> Result<&str, FieldIssue> {
    let value = value.trim();
    if value.chars().any(|c| is_control(c) && !matches!(c, '\n' | '\r' | '\t')) {
        Err(FieldIssue::InvalidCharacter)
    } else if value.chars().count() > max {
        Err(FieldIssue::TooLong)
    } else {
        Ok(value)
    }
}

/// A person's name, from a source that may not be refused (a provider's claim, a stored name from
/// before this rule): the name when it is one clean line, else nothing.
pub fn clean_name(value: &str) -> Option<&str> {
    line(value, MAX_NAME).ok()
}

/// The longest name or title a person may give.
pub const MAX_NAME: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_refuses_every_line_break_and_control_character() {
        for bad in ["Mallory\r\nX", "a\nb", "a\rb", "a\tb", "a\0b", "a\u{1b}[31mb", "a\u{85}b", "a\u{2028}b", "a\u{7f}b"] {
            assert_eq!(line(bad, 200), Err(FieldIssue::InvalidCharacter), "{bad:?}");
        }
    }

    #[test]
    fn a_line_is_trimmed_required_and_bounded_in_characters() {
        assert_eq!(line("  Zoë Ångström \n", 200), Ok("Zoë Ångström"));
        assert_eq!(line(" \t ", 200), Err(FieldIssue::Required));
        assert_eq!(line(&"é".repeat(5), 5), Ok("ééééé"));
        assert_eq!(line(&"é".repeat(6), 5), Err(FieldIssue::TooLong));
    }

    #[test]
    fn paragraphs_keep_line_breaks_and_tabs_but_no_other_control() {
        assert_eq!(paragraphs("one\r\ntwo\n\tthree", 100), Ok("one\r\ntwo\n\tthree"));
        assert_eq!(paragraphs("", 100), Ok(""));
        assert_eq!(paragraphs("bell\u{7}", 100), Err(FieldIssue::InvalidCharacter));
        assert_eq!(paragraphs("x".repeat(101).as_str(), 100), Err(FieldIssue::TooLong));
    }

    #[test]
    fn a_name_that_is_not_one_clean_line_is_no_name() {
        assert_eq!(clean_name("Ada Lovelace"), Some("Ada Lovelace"));
        assert_eq!(clean_name("Mallory\r\nBcc: x@evil.test"), None);
        assert_eq!(clean_name(""), None);
    }
}
