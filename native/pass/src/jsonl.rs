//! The check of JSON Lines text before Arrow's JSON reader sees it (`prf_jsonl_check`), in
//! one pass over the bytes: what `prfeval._io.jsonl.check_jsonl` does with numpy and
//! Python's parser, with the same refusals.
//!
//! Refused, with the line (1 first): bytes that are not UTF-8 (`NOT_UTF8`, the line of the
//! first bad byte, before anything else), a list or object directly inside a line's object
//! with more than `max_items` items (`TOO_MANY`: counted as it is read, so a line of a
//! billion ids is refused at its `max_items + 1`-th), a line that does not start with `{`
//! (`START`), more after the object that opens it (`MORE`), nesting deeper than `max_depth`
//! (`DEEP`). The first such line wins; a line of too many items is reported before an
//! earlier shape problem, as the numpy check does (it counts items first).
//!
//! Flagged for Python's row-by-row reader (`for_python`), since Arrow would misread them:
//! a key named twice in an object, a key with an escape (compared only once decoded), an
//! integer beyond 64 bits, a list whose first item is `null`, an object as a value on the
//! first line (Arrow makes a struct field per key), and text that is not JSON (Python's
//! parser names the line and what is wrong). After a syntax error the line's brackets are
//! still counted, outside strings, for `DEEP` and `MORE`, as the numpy check counts them.

use std::collections::HashSet;

pub const OK: i64 = 0;
pub const START: i64 = 1;
pub const MORE: i64 = 2;
pub const DEEP: i64 = 3;
pub const NOT_UTF8: i64 = 4;
pub const TOO_MANY: i64 = 5;

/// The inputs and outputs of `prf_jsonl_check`, by name (see `prfeval._io.jsonl_native`).
#[repr(C)]
pub struct JsonlCheck {
    pub data: *const u8,
    pub len: usize,
    pub max_depth: u64,
    pub max_items: u64,
    /// Out: `OK`, a refusal code, or -1 (a panic, caught).
    pub status: i64,
    /// Out: the refused line (1 first), 0 when none.
    pub line: u64,
    /// Out: 1 when the text is for Python's reader rather than Arrow's.
    pub for_python: u8,
}

/// What one scan found: the first refusal (code, line), and whether Python should read it.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    pub status: i64,
    pub line: u64,
    pub for_python: bool,
}

pub(crate) struct Scan<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) i: usize,
    pub(crate) end: usize,
    pub(crate) max_depth: usize,
    pub(crate) max_items: u64,
    pub(crate) depth: usize,
    pub(crate) first_line: bool,
    pub(crate) for_python: bool,
    pub(crate) too_many: bool,
}

pub(crate) enum Stop {
    Syntax,
    Deep,
    TooMany,
}

fn space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

impl<'a> Scan<'a> {
    /// Spaces before and after a line's object, where the numpy check also takes the bytes
    /// of a byte-order mark (0xEF, 0xBB, 0xBF) for spaces: such a line is for Python's
    /// reader, which says what is wrong with it.
    pub(crate) fn skip_line_space(&mut self) {
        while self.i < self.end {
            match self.b[self.i] {
                c if space(c) => {}
                0xEF | 0xBB | 0xBF => self.for_python = true,
                _ => break,
            }
            self.i += 1;
        }
    }

    pub(crate) fn skip(&mut self) {
        while self.i < self.end && space(self.b[self.i]) {
            self.i += 1;
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        (self.i < self.end).then(|| self.b[self.i])
    }

    pub(crate) fn value(&mut self) -> Result<(), Stop> {
        self.skip();
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.list(),
            Some(b'"') => self.string().map(|_| ()),
            Some(b't') => self.word(b"true"),
            Some(b'f') => self.word(b"false"),
            Some(b'n') => self.word(b"null"),
            Some(c) if c == b'-' || c.is_ascii_digit() => self.number(),
            _ => Err(Stop::Syntax),
        }
    }

    pub(crate) fn word(&mut self, w: &[u8]) -> Result<(), Stop> {
        if self.b[self.i..self.end].starts_with(w) {
            self.i += w.len();
            Ok(())
        } else {
            Err(Stop::Syntax)
        }
    }

    pub(crate) fn digits(&mut self) -> usize {
        let start = self.i;
        while self.i < self.end && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - start
    }

    pub(crate) fn number(&mut self) -> Result<(), Stop> {
        let negative = self.b[self.i] == b'-';
        if negative {
            self.i += 1;
        }
        let first = self.i;
        let n = self.digits();
        if n == 0 || (n > 1 && self.b[first] == b'0') {
            return Err(Stop::Syntax);
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            integer = false;
            if self.digits() == 0 {
                return Err(Stop::Syntax);
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            integer = false;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Stop::Syntax);
            }
        }
        if integer && n >= 19 {
            let limit: &[u8] = if negative { b"9223372036854775808" } else { b"9223372036854775807" };
            if n > 19 || &self.b[first..first + n] > limit {
                self.for_python = true; // beyond 64 bits: kept as its text by Python's reader
            }
        }
        Ok(())
    }

    /// A string; returns its raw bytes between the quotes, and whether it has an escape.
    pub(crate) fn string(&mut self) -> Result<(usize, usize, bool), Stop> {
        self.i += 1; // the opening quote
        let start = self.i;
        let mut escaped = false;
        while self.i < self.end {
            let c = self.b[self.i];
            if c == b'"' {
                self.i += 1;
                return Ok((start, self.i - 1, escaped));
            }
            if c == b'\\' {
                escaped = true;
                let Some(&e) = self.b.get(self.i + 1).filter(|_| self.i + 1 < self.end) else {
                    return Err(Stop::Syntax);
                };
                match e {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                    b'u' => {
                        let hex = self.b.get(self.i + 2..self.i + 6).filter(|_| self.i + 6 <= self.end);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return Err(Stop::Syntax);
                        }
                        self.i += 6;
                    }
                    _ => return Err(Stop::Syntax),
                }
                continue;
            }
            if c < 0x20 {
                return Err(Stop::Syntax);
            }
            self.i += 1;
        }
        Err(Stop::Syntax)
    }

    pub(crate) fn open(&mut self) -> Result<(), Stop> {
        self.depth += 1;
        self.i += 1;
        if self.depth > self.max_depth {
            return Err(Stop::Deep);
        }
        Ok(())
    }

    pub(crate) fn counted(&mut self, items: u64) -> Result<(), Stop> {
        if self.depth == 2 && items > self.max_items {
            self.too_many = true;
            return Err(Stop::TooMany);
        }
        Ok(())
    }

    pub(crate) fn object(&mut self) -> Result<(), Stop> {
        self.open()?;
        let top = self.depth == 1;
        let mut few: Vec<(usize, usize)> = Vec::new();
        let mut many: Option<HashSet<&'a [u8]>> = None;
        let mut items = 0u64;
        self.skip();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.skip();
            if self.peek() != Some(b'"') {
                return Err(Stop::Syntax);
            }
            let (s, e, escaped) = self.string()?;
            if escaped {
                self.for_python = true;
            }
            let b = self.b;
            let key = &b[s..e];
            let repeated = match many.as_mut() {
                Some(set) => !set.insert(key),
                None => {
                    let seen = few.iter().any(|&(a, z)| &b[a..z] == key);
                    few.push((s, e));
                    if few.len() > 16 {
                        many = Some(few.iter().map(|&(a, z)| &b[a..z]).collect());
                    }
                    seen
                }
            };
            if repeated {
                self.for_python = true; // a key named twice: refused by Python's reader
            }
            self.skip();
            if self.peek() != Some(b':') {
                return Err(Stop::Syntax);
            }
            self.i += 1;
            self.skip();
            if top && self.first_line && self.peek() == Some(b'{') {
                self.for_python = true; // a map on the first line: not Arrow's struct
            }
            self.value()?;
            items += 1;
            self.counted(items)?;
            self.skip();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Stop::Syntax),
            }
        }
    }

    pub(crate) fn list(&mut self) -> Result<(), Stop> {
        self.open()?;
        let mut items = 0u64;
        self.skip();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.skip();
            if items == 0 && self.peek() == Some(b'n') {
                self.for_python = true; // null before any typed item: Arrow breaks the array
            }
            self.value()?;
            items += 1;
            self.counted(items)?;
            self.skip();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Stop::Syntax),
            }
        }
    }

    /// After a syntax error at `self.i`: the rest of the line's brackets outside strings,
    /// from the depth reached, as the numpy check counts them (`DEEP`, `MORE`, or `OK`).
    pub(crate) fn brackets(&mut self) -> i64 {
        let mut depth = self.depth as i64;
        let mut inside = false;
        let mut closed = false;
        while self.i < self.end {
            let c = self.b[self.i];
            self.i += 1;
            if inside {
                if c == b'\\' {
                    self.i += 1;
                } else if c == b'"' {
                    inside = false;
                }
                continue;
            }
            if closed && !space(c) {
                return MORE;
            }
            match c {
                b'"' => inside = true,
                b'{' | b'[' => {
                    depth += 1;
                    if depth > self.max_depth as i64 {
                        return DEEP;
                    }
                }
                b'}' | b']' => {
                    depth -= 1;
                    closed = depth == 0;
                }
                _ => {}
            }
        }
        OK
    }
}

/// The check of `data` (see the module's notes).
pub fn check(data: &[u8], max_depth: usize, max_items: u64) -> Found {
    let mut found = Found { status: OK, line: 0, for_python: false };
    if let Err(e) = std::str::from_utf8(data) {
        let at = e.valid_up_to();
        found.status = NOT_UTF8;
        found.line = data[..at].iter().filter(|&&c| c == b'\n').count() as u64 + 1;
        return found;
    }
    let mut first_problem: Option<(i64, u64)> = None;
    let mut start = if data.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    let mut line = 1u64;
    let mut first_line = true;
    while start <= data.len() {
        let end = memchr(b'\n', &data[start..]).map_or(data.len(), |k| start + k);
        let mut scan = Scan {
            b: data, i: start, end, max_depth, max_items, depth: 0, first_line,
            for_python: false, too_many: false,
        };
        scan.skip_line_space();
        if scan.i < end {
            first_line = false;
            let status = if scan.b[scan.i] != b'{' {
                START
            } else {
                match scan.object() {
                    Ok(()) => {
                        scan.skip_line_space();
                        if scan.i < end { MORE } else { OK }
                    }
                    Err(Stop::Deep) => DEEP,
                    Err(Stop::TooMany) => TOO_MANY,
                    Err(Stop::Syntax) => {
                        found.for_python = true;
                        scan.brackets()
                    }
                }
            };
            if status == TOO_MANY {
                found.status = TOO_MANY;
                found.line = line;
                return found; // before any earlier shape problem, as the numpy check
            }
            if status != OK && first_problem.is_none() {
                first_problem = Some((status, line));
            }
        }
        found.for_python |= scan.for_python;
        start = end + 1;
        line += 1;
    }
    if let Some((status, at)) = first_problem {
        found.status = status;
        found.line = at;
    }
    found
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

/// Check `check.data[..check.len]`, writing `status`, `line` and `for_python`.
///
/// # Safety
/// `args` points to a `JsonlCheck` whose `data` holds `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn prf_jsonl_check(args: *mut JsonlCheck) -> i64 {
    let c = &mut *args;
    let data = crate::bytes(c.data, c.len);
    let (max_depth, max_items) = (c.max_depth as usize, c.max_items);
    let found = crate::guarded(
        || Found { status: -1, line: 0, for_python: false },
        || check(data, max_depth, max_items),
    );
    c.status = found.status;
    c.line = found.line;
    c.for_python = u8::from(found.for_python);
    found.status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> (i64, u64, bool) {
        let f = check(text.as_bytes(), 64, 5);
        (f.status, f.line, f.for_python)
    }

    #[test]
    fn plain_lines_pass_for_arrow() {
        assert_eq!(run("{\"q\": \"a\", \"d\": [\"x\", \"y\"], \"s\": [1.5, -2e3]}\n\n{}\n"),
                   (OK, 0, false));
        assert_eq!(run("\u{feff}{\"a\": [{\"b\": 1}]}"), (OK, 0, false)); // objects in a list
        assert_eq!(run("\u{feff}{\"a\": {\"b\": 1}}"), (OK, 0, true)); // a map on line 1
        assert_eq!(run("{\"a\": 1}\n{\"m\": {\"d1\": 1}}\n"), (OK, 0, false));
    }

    #[test]
    fn shapes_are_refused_with_their_line() {
        assert_eq!(run("{}\nnull {\"a\": 1}\n").0, START);
        assert_eq!(run("{}\nnull {\"a\": 1}\n").1, 2);
        assert_eq!(run("{} {}").0, MORE);
        assert_eq!(run("{} null\n").0, MORE);
        assert_eq!(run("[1]").0, START);
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(70), "]".repeat(70));
        assert_eq!(run(&deep).0, DEEP);
        assert_eq!(check(b"{}\n{\"a\": \"\xff\"}", 64, 5).status, NOT_UTF8);
        assert_eq!(check(b"{}\n{\"a\": \"\xff\"}", 64, 5).line, 2);
    }

    #[test]
    fn too_many_items_win_over_an_earlier_shape_problem() {
        assert_eq!(run("{}{}\n{\"d\": [1, 2, 3, 4, 5]}\n"), (MORE, 1, false));
        assert_eq!(run("{}{}\n{\"d\": [1, 2, 3, 4, 5, 6]}\n").0, TOO_MANY);
        assert_eq!(run("{\"n\": \"[,,,,,,]\", \"d\": {\"a\": [1,2,3,4,5,6,7]}}").0, OK);
        assert_eq!(run("{\"d\": {\"a\": 1, \"b\": 2, \"c\": 3, \"e\": 4, \"f\": 5, \"g\": 6}}").0,
                   TOO_MANY);
    }

    #[test]
    fn what_arrow_misreads_goes_to_python() {
        for text in [
            "{\"a\": 1, \"a\": 2}",
            "{\"a\": [{\"id\": 1, \"id\": 2}]}",
            "{\"a\": [null, \"x\"]}",
            "{\"a\": [ null]}",
            "{\"a\": 18446744073709551615}",
            "{\"a\": -9223372036854775809}",
            "{\"a\": 12345678901234567890123}",
            "{\"m\": {\"d1\": 1}}\n{}",
            "{\"a\\u0062\": 1}",
            "{\"a\": tru}",
            "{\"a\": NaN}",
            "{\"a\": 01}",
            "{\"a\": \"x\ty\"}",
            "{\"a\": 1,}",
        ] {
            let (status, _, python) = run(text);
            assert_eq!((status, python), (OK, true), "{text}");
        }
        for text in ["{\"a\": 9223372036854775807}", "{\"a\": -9223372036854775808}",
                     "{\"a\": [1, null]}", "{\"a\": 1e400}"] {
            assert_eq!(run(text), (OK, 0, false), "{text}");
        }
    }

    #[test]
    fn brackets_after_a_syntax_error_still_count() {
        let deep = format!("{{\"a\": x {}", "[".repeat(70));
        assert_eq!(run(&deep).0, DEEP);
        assert_eq!(run("{\"a\": x} {}").0, MORE);
        assert_eq!(run("\r\u{feff}"), (OK, 0, true)); // a mark after a space: for Python
        assert_eq!(run("{\"a\": \"}\" x}").0, OK);
    }

    #[test]
    fn the_boundary_writes_its_fields() {
        let mut c = JsonlCheck {
            data: b"{}".as_ptr(), len: 2, max_depth: 64, max_items: 5, status: 9, line: 9,
            for_python: 9,
        };
        assert_eq!(unsafe { prf_jsonl_check(&mut c) }, OK);
        assert_eq!((c.status, c.line, c.for_python), (OK, 0, 0));
    }
}
