//! The compiled reader of a JSON Lines run given as lists (`prf_jsonl_lists`): one object a
//! line, a question's id under one key and its ranked passages as a list under another,
//! with, optionally, a parallel list of scores. It writes what Arrow's JSON reader and the
//! flattening of its list columns would give (the rows' query ids, each row's list offsets,
//! the doc ids and the scores) straight into the caller's buffers, on every core, in one
//! pass over the bytes.
//!
//! The compiled pass reads such a run with the same parser (`read_parts`, `by_span`): the ids
//! are then where they are in the text, not copied, and the pass joins them as it joins a
//! TREC run's lines (`prf_run_lists` in lib.rs).
//!
//! It takes only the plain case and gives the rest back (status `NOT_PLAIN`, with the line),
//! for prfeval's other reader, which reads it or names what is wrong: every line an object
//! with exactly the first line's keys (`keys`), each once and unescaped; the query id a
//! non-empty string without escapes or an integer of at most 18 digits (not `-0`), of one
//! kind in the whole file (as Arrow types a column); the doc ids likewise; the scores numbers
//! (integers of at most 15 digits: exact as doubles) as many as the doc ids. Every other
//! value is checked as the JSON Lines check (`jsonl.rs`) checks it: the text is UTF-8, no
//! key is named twice, no integer is beyond 64 bits, no list is deeper than `max_depth`,
//! none longer than `max_items`. Blank lines are skipped, as both other readers skip them.

use crate::jsonl::{Scan, Stop};

/// The line was read by this reader.
pub const READ: i64 = 0;
/// The text is not in the plain case: prfeval's other reader reads it (`line`: where).
pub const NOT_PLAIN: i64 = 1;

/// The keys of a JSON Lines run of lists, by name: the first line's, and the roles of three
/// (`prfeval._io.jsonl_lists.ListKeys` mirrors it).
#[repr(C)]
pub struct ListKeys {
    /// `n_keys` strings: key `k` is `keys[key_offsets[k]..key_offsets[k + 1]]`.
    pub keys: *const u8,
    pub key_offsets: *const i64,
    pub n_keys: usize,
    /// Which key holds the query id, the doc ids and the scores (-1: no scores).
    pub query_key: i64,
    pub docs_key: i64,
    pub scores_key: i64,
    pub max_depth: u64,
}

/// A run's keys, owned (the compiled pass keeps them while it reads the run).
pub struct Layout {
    names: Vec<Vec<u8>>,
    query: usize,
    docs: usize,
    scores: Option<usize>,
    pub max_depth: usize,
}

impl Layout {
    /// The keys `k` say, or `None` when they are not 1 to 64 keys with a query id and
    /// doc ids among them.
    ///
    /// # Safety
    /// `k`'s pointers must be valid for `n_keys` keys.
    pub unsafe fn of(k: &ListKeys) -> Option<Layout> {
        if k.n_keys == 0 || k.n_keys > 64 {
            return None;
        }
        let offsets = std::slice::from_raw_parts(k.key_offsets, k.n_keys + 1);
        let all = crate::bytes(k.keys, offsets[k.n_keys] as usize);
        let names = offsets.windows(2).map(|w| all[w[0] as usize..w[1] as usize].to_vec()).collect();
        let role = |r: i64| usize::try_from(r).ok().filter(|&r| r < k.n_keys);
        Some(Layout {
            names,
            query: role(k.query_key)?,
            docs: role(k.docs_key)?,
            scores: role(k.scores_key),
            max_depth: k.max_depth as usize,
        })
    }

    /// Whether the run has scores.
    pub fn scored(&self) -> bool {
        self.scores.is_some()
    }

    /// The keys' names, borrowed (for `keys`).
    pub fn names(&self) -> Vec<&[u8]> {
        self.names.iter().map(Vec::as_slice).collect()
    }

    /// The keys, as a read takes them (`names`: from `names`).
    pub fn keys<'k>(&self, names: &'k [&'k [u8]]) -> Keys<'k> {
        Keys { names, query: self.query, docs: self.docs, scores: self.scores }
    }
}

/// The inputs and outputs of `prf_jsonl_lists`, by name (see `prfeval._io.jsonl_lists`).
#[repr(C)]
pub struct JsonlLists {
    pub data: *const u8,
    pub len: usize,
    pub keys: ListKeys,
    pub max_items: u64,
    pub threads: usize,
    /// Room in the outputs: rows, items, bytes of query ids, bytes of doc ids.
    pub row_room: usize,
    pub item_room: usize,
    pub query_bytes: usize,
    pub doc_bytes: usize,
    /// Outputs: Arrow string offsets (4 bytes, `rows + 1`) and bytes of the rows' query ids;
    /// each row's list offsets (`rows + 1`); the doc ids' offsets (`items + 1`) and bytes;
    /// the scores (`items`; unused without scores).
    pub out_query_offsets: *mut i32,
    pub out_query_data: *mut u8,
    pub out_list_offsets: *mut i64,
    pub out_doc_offsets: *mut i32,
    pub out_doc_data: *mut u8,
    pub out_scores: *mut f64,
    /// Results: `READ` or `NOT_PLAIN` (and its line, 1 first); the counts written.
    pub status: i64,
    pub line: u64,
    pub rows: u64,
    pub items: u64,
}

/// The ids one thread read, in one of two forms: copied one after the other (`data`, each
/// id's end in `ends`: what Arrow's buffers take), or as `spans` of the text (the compiled
/// pass hashes and joins them where they are).
#[derive(Default)]
struct Ids {
    by_span: bool,
    data: Vec<u8>,
    ends: Vec<usize>,
    spans: Vec<(usize, usize)>,
    /// Kinds of id met: 1 strings, 2 integers.
    kinds: u8,
}

impl Ids {
    fn push(&mut self, b: &[u8], s: usize, e: usize, kind: u8) {
        if self.by_span {
            self.spans.push((s, e));
        } else {
            self.data.extend_from_slice(&b[s..e]);
            self.ends.push(self.data.len());
        }
        self.kinds |= kind;
    }

    fn len(&self) -> usize {
        if self.by_span { self.spans.len() } else { self.ends.len() }
    }
}

/// What one thread read of its lines.
#[derive(Default)]
pub(crate) struct Part {
    queries: Ids,
    docs: Ids,
    row_items: Vec<usize>,
    /// Each row's line in the part (0 first; blank lines count).
    row_lines: Vec<u64>,
    scores: Vec<f64>,
    /// Lines in the part, and the first one not plain (0 first), if any.
    lines: u64,
    not_plain: Option<u64>,
}

/// Which keys a line must have, and the roles of three of them.
#[derive(Clone, Copy)]
pub struct Keys<'k> {
    pub names: &'k [&'k [u8]],
    pub query: usize,
    pub docs: usize,
    pub scores: Option<usize>,
}

type Plain<T> = Result<T, ()>;

fn stop<T>(r: Result<T, Stop>) -> Plain<T> {
    r.map_err(|_| ())
}

/// An id: a string without escapes (not empty) or a plain integer of at most 18 digits.
fn id(scan: &mut Scan, ids: &mut Ids) -> Plain<()> {
    scan.skip();
    match scan.peek() {
        Some(b'"') => {
            let (s, e, escaped) = stop(scan.string())?;
            if escaped || s == e {
                return Err(());
            }
            ids.push(scan.b, s, e, 1);
        }
        Some(c) if c == b'-' || c.is_ascii_digit() => {
            let start = scan.i;
            stop(scan.number())?;
            let token = &scan.b[start..scan.i];
            let digits = token.strip_prefix(b"-").unwrap_or(token);
            if digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) || token == b"-0" {
                return Err(());
            }
            ids.push(scan.b, start, scan.i, 2);
        }
        _ => return Err(()),
    }
    Ok(())
}

/// A number as Arrow reads it into a double: correctly rounded (`f64::from_str`), finite.
fn score(scan: &mut Scan) -> Plain<f64> {
    scan.skip();
    let start = scan.i;
    if !matches!(scan.peek(), Some(c) if c == b'-' || c.is_ascii_digit()) {
        return Err(());
    }
    stop(scan.number())?;
    let token = &scan.b[start..scan.i];
    let integer = !token.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
    if integer && token.len() > 15 {
        return Err(());
    }
    let text = std::str::from_utf8(token).map_err(|_| ())?;
    let value: f64 = text.parse().map_err(|_| ())?;
    if value.is_finite() { Ok(value) } else { Err(()) }
}

/// A list of `max_items` items at most, each read by `item`.
fn list(scan: &mut Scan, mut item: impl FnMut(&mut Scan) -> Plain<()>) -> Plain<()> {
    scan.skip();
    if scan.peek() != Some(b'[') {
        return Err(());
    }
    stop(scan.open())?;
    scan.skip();
    if scan.peek() == Some(b']') {
        scan.i += 1;
        scan.depth -= 1;
        return Ok(());
    }
    let mut items = 0u64;
    loop {
        item(scan)?;
        items += 1;
        if items > scan.max_items {
            return Err(());
        }
        if closed(scan, b']')? {
            return Ok(());
        }
    }
}

/// After a list's item or an object's value: past a comma (`false`) or the closing
/// `close` (`true`, one level up).
fn closed(scan: &mut Scan, close: u8) -> Plain<bool> {
    scan.skip();
    match scan.peek() {
        Some(b',') => scan.i += 1,
        Some(c) if c == close => {
            scan.i += 1;
            scan.depth -= 1;
            return Ok(true);
        }
        _ => return Err(()),
    }
    Ok(false)
}

/// One line's object (`scan` at its `{`) into `part`.
fn row(scan: &mut Scan, keys: Keys, part: &mut Part) -> Plain<()> {
    stop(scan.open())?;
    let mut seen = 0u64;
    let (docs_before, scores_before) = (part.docs.len(), part.scores.len());
    loop {
        scan.skip();
        if scan.peek() != Some(b'"') {
            return Err(()); // also `{}`: a line without the keys
        }
        let (s, e, escaped) = stop(scan.string())?;
        let key = &scan.b[s..e];
        let k = keys.names.iter().position(|&name| name == key).ok_or(())?;
        if escaped || seen & (1 << k) != 0 {
            return Err(());
        }
        seen |= 1 << k;
        scan.skip();
        if scan.peek() != Some(b':') {
            return Err(());
        }
        scan.i += 1;
        if k == keys.query {
            id(scan, &mut part.queries)?;
        } else if k == keys.docs {
            let docs = &mut part.docs;
            list(scan, |scan| id(scan, docs))?;
        } else if Some(k) == keys.scores {
            let scores = &mut part.scores;
            list(scan, |scan| score(scan).map(|x| scores.push(x)))?;
        } else {
            scan.skip();
            stop(scan.value())?;
            if scan.for_python {
                return Err(());
            }
        }
        if closed(scan, b'}')? {
            break;
        }
    }
    let items = part.docs.len() - docs_before;
    let n_scores = part.scores.len() - scores_before;
    if seen.count_ones() as usize != keys.names.len() || (keys.scores.is_some() && n_scores != items) {
        return Err(());
    }
    part.row_items.push(items);
    part.row_lines.push(part.lines);
    Ok(())
}

/// Read the lines of `data[a..b]` (whole lines).
fn read_part(data: &[u8], a: usize, b: usize, keys: Keys, limits: Limits) -> Part {
    let mut part = Part::default();
    let guess = (b - a) / 16;
    (part.queries.by_span, part.docs.by_span) = (limits.by_span, limits.by_span);
    if limits.by_span {
        part.docs.spans.reserve(guess / 2);
    } else {
        part.docs.data.reserve(guess);
        part.docs.ends.reserve(guess / 4);
    }
    let Limits { max_depth, max_items, .. } = limits;
    if keys.scores.is_some() {
        part.scores.reserve(guess / 4);
    }
    if std::str::from_utf8(&data[a..b]).is_err() {
        part.not_plain = Some(0);
        return part;
    }
    let mut start = a;
    while start < b {
        let end = data[start..b].iter().position(|&c| c == b'\n').map_or(b, |k| start + k);
        let mut scan = Scan {
            b: data, i: start, end, max_depth, max_items, depth: 0, first_line: false,
            for_python: false, too_many: false,
        };
        scan.skip_line_space();
        if scan.i < end {
            let plain = scan.b[scan.i] == b'{' && row(&mut scan, keys, &mut part).is_ok() && {
                scan.skip_line_space();
                scan.i == end && !scan.for_python
            };
            if !plain {
                part.not_plain = Some(part.lines);
                return part;
            }
        }
        part.lines += 1;
        start = end + 1;
    }
    part
}

/// The outputs to write into.
pub struct Out<'o> {
    pub query_offsets: &'o mut [i32],
    pub query_data: &'o mut [u8],
    pub list_offsets: &'o mut [i64],
    pub doc_offsets: &'o mut [i32],
    pub doc_data: &'o mut [u8],
    pub scores: &'o mut [f64],
}

/// How a read goes: the limits of the JSON Lines check, and the form of the ids (`by_span`:
/// where they are in the text, for the compiled pass; else copied, for Arrow's buffers).
#[derive(Clone, Copy)]
pub struct Limits {
    pub max_depth: usize,
    pub max_items: u64,
    pub by_span: bool,
}

/// Read `data` (see the module's notes) on `threads` threads: the parts, in order, or
/// `Err(line)` (1 first) where the text is not plain.
pub(crate) fn read_parts(data: &[u8], keys: Keys, limits: Limits, threads: usize) -> Result<Vec<Part>, u64> {
    if data.starts_with(b"\xef\xbb\xbf") || keys.names.len() > 64 {
        return Err(1);
    }
    let threads = threads.clamp(1, 64).min(data.len() / (1 << 20) + 1);
    let mut cuts = vec![0usize];
    for t in 1..threads {
        let at = (t * data.len() / threads).max(*cuts.last().unwrap_or(&0));
        let next = data[at..].iter().position(|&c| c == b'\n').map_or(data.len(), |k| at + k + 1);
        cuts.push(next);
    }
    cuts.push(data.len());
    let parts: Vec<Part> = std::thread::scope(|s| {
        let handles: Vec<_> = cuts.windows(2)
            .map(|w| (w[0], w[1]))
            .map(|(a, b)| s.spawn(move || read_part(data, a, b, keys, limits)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("a reading thread failed")).collect()
    });
    let mut line = 0u64;
    for p in &parts {
        if let Some(at) = p.not_plain {
            return Err(line + at + 1);
        }
        line += p.lines;
    }
    let query_kinds = parts.iter().fold(0, |k, p| k | p.queries.kinds);
    let doc_kinds = parts.iter().fold(0, |k, p| k | p.docs.kinds);
    if query_kinds == 3 || doc_kinds == 3 {
        return Err(1); // strings and integers in one column: Arrow's types differ
    }
    Ok(parts)
}

impl Part {
    /// The items (doc ids) read.
    pub(crate) fn items(&self) -> usize {
        self.docs.len()
    }

    /// The lines read, blank ones too.
    pub(crate) fn lines(&self) -> u64 {
        self.lines
    }

    /// The spans of the part's items `at..at + n` (read `by_span`).
    pub(crate) fn doc_spans(&self, at: usize, n: usize) -> &[(usize, usize)] {
        &self.docs.spans[at..at + n]
    }

    /// The scores of the part's items `at..at + n` (none without scores).
    pub(crate) fn item_scores(&self, at: usize, n: usize) -> &[f64] {
        if self.scores.is_empty() { &[] } else { &self.scores[at..at + n] }
    }

    /// Each row of the part (read `by_span`), in order: its line (1 first, the part's first
    /// line being `line0 + 1`), its query id's span, its first item in the part and its doc
    /// ids' spans.
    pub(crate) fn rows(&self, line0: u64, mut row: impl FnMut(u64, (usize, usize), usize, &[(usize, usize)])) {
        let mut at = 0;
        for (r, &n) in self.row_items.iter().enumerate() {
            row(line0 + self.row_lines[r] + 1, self.queries.spans[r], at, &self.docs.spans[at..at + n]);
            at += n;
        }
    }
}

/// Each row of `parts` (read `by_span`), in order: its line (1 first), its query id's span
/// and its doc ids' spans.
pub(crate) fn for_each_row(parts: &[Part], mut row: impl FnMut(u64, (usize, usize), &[(usize, usize)])) {
    let mut line0 = 0u64;
    for p in parts {
        p.rows(line0, |line, query, _, docs| row(line, query, docs));
        line0 += p.lines;
    }
}

/// Read `data` (see the module's notes) into `out`: `Ok((rows, items))`, `Err(line)` (1
/// first) where the text is not plain, or `Err(0)` when the outputs are too small.
pub fn read(data: &[u8], keys: Keys, max_depth: usize, max_items: u64, threads: usize, out: Out)
    -> Result<(usize, usize), u64> {
    let limits = Limits { max_depth, max_items, by_span: false };
    let parts = read_parts(data, keys, limits, threads)?;
    let rows: usize = parts.iter().map(|p| p.row_items.len()).sum();
    let items: usize = parts.iter().map(|p| p.docs.ends.len()).sum();
    let query_bytes: usize = parts.iter().map(|p| p.queries.data.len()).sum();
    let doc_bytes: usize = parts.iter().map(|p| p.docs.data.len()).sum();
    let scored = keys.scores.is_some();
    if out.query_offsets.len() < rows + 1 || out.list_offsets.len() < rows + 1
        || out.doc_offsets.len() < items + 1 || out.query_data.len() < query_bytes
        || out.doc_data.len() < doc_bytes || (scored && out.scores.len() < items)
    {
        return Err(0);
    }
    if query_bytes > i32::MAX as usize || doc_bytes > i32::MAX as usize {
        return Err(1); // past Arrow's 4-byte string offsets: the other reader reads it
    }
    let Out { query_offsets, query_data, list_offsets, doc_offsets, doc_data, scores } = out;
    query_offsets[0] = 0;
    list_offsets[0] = 0;
    doc_offsets[0] = 0;
    let (mut r, mut q, mut i, mut d) = (0usize, 0usize, 0usize, 0usize);
    for p in &parts {
        let (queries, docs) = (&p.queries, &p.docs);
        for (k, &end) in queries.ends.iter().enumerate() {
            query_offsets[r + k + 1] = (q + end) as i32;
        }
        let mut at = i;
        for (k, &n) in p.row_items.iter().enumerate() {
            at += n;
            list_offsets[r + k + 1] = at as i64;
        }
        for (k, &end) in docs.ends.iter().enumerate() {
            doc_offsets[i + k + 1] = (d + end) as i32;
        }
        query_data[q..q + queries.data.len()].copy_from_slice(&queries.data);
        doc_data[d..d + docs.data.len()].copy_from_slice(&docs.data);
        if scored {
            scores[i..i + p.scores.len()].copy_from_slice(&p.scores);
        }
        r += p.row_items.len();
        q += queries.data.len();
        i += docs.ends.len();
        d += docs.data.len();
    }
    Ok((rows, items))
}

unsafe fn out_slice<'o, T>(p: *mut T, n: usize) -> &'o mut [T] {
    if n == 0 || p.is_null() { &mut [] } else { std::slice::from_raw_parts_mut(p, n) }
}

/// `prf_jsonl_lists`' body: 0 (read, or not plain: `status`), or -1 (bad arguments,
/// outputs too small).
pub unsafe fn read_c(a: &mut JsonlLists) -> i64 {
    let data = crate::bytes(a.data, a.len);
    if a.keys.n_keys == 0 || a.keys.n_keys > 64 {
        a.status = NOT_PLAIN;
        a.line = 1;
        return 0;
    }
    let Some(layout) = Layout::of(&a.keys) else { return -1 };
    let names = layout.names();
    let keys = layout.keys(&names);
    let out = Out {
        query_offsets: out_slice(a.out_query_offsets, a.row_room + 1),
        query_data: out_slice(a.out_query_data, a.query_bytes),
        list_offsets: out_slice(a.out_list_offsets, a.row_room + 1),
        doc_offsets: out_slice(a.out_doc_offsets, a.item_room + 1),
        doc_data: out_slice(a.out_doc_data, a.doc_bytes),
        scores: out_slice(a.out_scores, if keys.scores.is_some() { a.item_room } else { 0 }),
    };
    match read(data, keys, layout.max_depth, a.max_items, a.threads, out) {
        Ok((rows, items)) => {
            a.status = READ;
            a.rows = rows as u64;
            a.items = items as u64;
            0
        }
        Err(0) => -1,
        Err(line) => {
            a.status = NOT_PLAIN;
            a.line = line;
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&[u8]; 3] = [b"qid", b"doc_id", b"scores"];

    /// Read `text` with the keys above: (query ids, lists of doc ids, scores) or the line.
    fn run(text: &str, threads: usize) -> Result<(Vec<String>, Vec<Vec<String>>, Vec<f64>), u64> {
        let keys = Keys { names: &KEYS, query: 0, docs: 1, scores: Some(2) };
        let n = text.len() + 2;
        let (mut qo, mut qd, mut lo) = (vec![0i32; n], vec![0u8; n], vec![0i64; n]);
        let (mut d_o, mut dd, mut sc) = (vec![0i32; n], vec![0u8; n], vec![0f64; n]);
        let out = Out { query_offsets: &mut qo, query_data: &mut qd, list_offsets: &mut lo,
                        doc_offsets: &mut d_o, doc_data: &mut dd, scores: &mut sc };
        let (rows, items) = read(text.as_bytes(), keys, 8, 5, threads, out)?;
        let s = |o: &[i32], d: &[u8], k: usize| String::from_utf8(d[o[k] as usize..o[k + 1] as usize].to_vec()).unwrap();
        let queries = (0..rows).map(|r| s(&qo, &qd, r)).collect();
        let lists = (0..rows).map(|r| (lo[r] as usize..lo[r + 1] as usize).map(|i| s(&d_o, &dd, i)).collect()).collect();
        Ok((queries, lists, sc[..items].to_vec()))
    }

    #[test]
    fn plain_lines_are_read_in_any_key_order() {
        let text = "{\"qid\": \"q1\", \"doc_id\": [\"a\", \"b\"], \"scores\": [2, 1.5]}\n\n\
                    {\"scores\": [], \"doc_id\": [], \"qid\": \"q2\"}\r\n   \n\
                    {\"doc_id\":[\"c\"],\"qid\":\"q1\",\"scores\":[-3e-1]}";
        let (queries, lists, scores) = run(text, 1).unwrap();
        assert_eq!(queries, ["q1", "q2", "q1"]);
        assert_eq!(lists, vec![vec!["a", "b"], vec![], vec!["c"]]);
        assert_eq!(scores, [2.0, 1.5, -0.3]);
    }

    #[test]
    fn integer_ids_are_their_text() {
        let text = "{\"qid\": 7, \"doc_id\": [10, -2], \"scores\": [1, 2]}";
        let (queries, lists, _) = run(text, 1).unwrap();
        assert_eq!((queries, lists), (vec!["7".to_string()], vec![vec!["10".to_string(), "-2".into()]]));
    }

    #[test]
    fn threads_read_the_same() {
        let text: String = (0..40000)
            .map(|i| format!("{{\"qid\": \"q{i}\", \"doc_id\": [\"d{i}\", \"e\"], \"scores\": [{i}.5, 0]}}\n"))
            .collect();
        assert_eq!(run(&text, 1), run(&text, 4));
        assert_eq!(run(&text, 4).unwrap().0.len(), 40000);
    }

    #[test]
    fn what_is_not_plain_gives_its_line() {
        let good = "{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1]}\n";
        for (bad, why) in [
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"]}", "a key missing"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1], \"x\": 1}", "a key not on the first line"),
            ("{\"qid\": \"q\", \"qid\": \"r\", \"doc_id\": [\"a\"], \"scores\": [1]}", "a key twice"),
            ("{\"qid\": \"q\\u0041\", \"doc_id\": [\"a\"], \"scores\": [1]}", "an escape"),
            ("{\"qid\": \"\", \"doc_id\": [\"a\"], \"scores\": [1]}", "an empty id"),
            ("{\"qid\": null, \"doc_id\": [\"a\"], \"scores\": [1]}", "a null id"),
            ("{\"qid\": 1.5, \"doc_id\": [\"a\"], \"scores\": [1]}", "a decimal id"),
            ("{\"qid\": -0, \"doc_id\": [\"a\"], \"scores\": [1]}", "minus zero"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\", null], \"scores\": [1, 2]}", "a null item"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1, 2]}", "lengths differ"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [\"1\"]}", "a text score"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1e999]}", "an infinite score"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1234567890123456]}", "an inexact score"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"], \"scores\": [1,1,1,1,1,1]}", "too many"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1]} x", "more after the object"),
            ("[1]", "not an object"),
            ("{\"qid\": \"q\", \"doc_id\": [\"a\"], \"scores\": [1]", "unclosed"),
        ] {
            let text = format!("{good}{bad}\n{good}");
            assert_eq!(run(&text, 1), Err(2), "{why}");
        }
        assert_eq!(run(&format!("{good}{{\"qid\": 1, \"doc_id\": [], \"scores\": []}}"), 1), Err(1), "kinds mixed");
        assert_eq!(run(&format!("\u{feff}{good}"), 1), Err(1), "a byte-order mark");
    }
}
