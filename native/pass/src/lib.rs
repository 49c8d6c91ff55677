//! prfeval's compiled pass: one pass over the bytes of a TREC qrels file and run that parses
//! them, gives query and document ids integer codes and joins every run line with its
//! judgment, on `threads` threads. A dependency-free `cdylib` with a C ABI, loaded by
//! `prfeval._io.native` through ctypes.
//!
//! The pass takes only the plain layout, the one Arrow's streaming reader takes today:
//! fields separated by one space (4 in the qrels, 6 in the run), `\n` line ends (the last
//! may lack it), no blank line, no line starting with `#`, no control byte, valid UTF-8,
//! scores written as decimals (`-12.5`, `3e-2`), integer grades of at most 4 digits, ids under
//! 64 KiB, no judgment repeated, and a run grouped by query (each query's lines together). On anything
//! else it stops and says why (`status`), and prfeval reads the files its usual way, which
//! then reports any error as it always has: the pass never reports errors of its own.
//!
//! A JSON Lines run of lists (`prf_run_lists`: one object a line, a query id and a list of
//! doc ids, maybe a parallel list of scores) is read too: parsed whole on the first call, so
//! that it is taken or refused before any of it is measured, then handed out a chunk of whole
//! queries at a time (`ReadLists`); `jsonl_lists` finds the ids where they are in the text, each item is a row
//! (its line in `row_line`), and the join is the one below. Its plain case is that reader's.
//! Judgments given as such lists (a query id and its relevant doc ids, grade 1 each) are
//! parsed by the same reader (`prf_judge_lists`) into the judgments below.
//!
//! The judgments are read once (`prf_judge`) and only read after that, so any number of
//! runs share them (`prf_run`). A run is read a segment at a time (`prf_next`): about 16 MiB
//! of text, cut at line ends and then past the end of the query there, so that a segment
//! holds whole queries. Each segment's arrays are its own memory, with doc codes of its own,
//! so that Python measures one segment while the next is read. The judged queries the run
//! never names come last (`prf_missing`). Work, a block at a time:
//!
//! 1. the block is cut into one chunk per thread; each thread parses its lines, hashes the
//!    doc ids (a word at a time) and writes the scores straight into the output;
//! 2. the query ids, which change once a query (not once a line), are coded on one thread;
//! 3. each thread takes a run of whole queries of the segment and joins them one at a time
//!    in a small table of the query's docs (`Probe`): the query's judgments go in first,
//!    then each line finds its doc there (its judgment, or an earlier line of the same doc:
//!    a repeat) or adds it, and a doc gets its code when it is first met. The table is
//!    sized for the query, so it stays in the core's cache: a line costs a lookup there,
//!    where a table of every doc (tens of MiB) cost a cache miss a line.
//!
//! Numbers: a decimal whose digits make an integer `m` below 2^53, with a power of ten within
//! 10^±22, is `m * 10^k` or `m / 10^k` of two exact doubles, which IEEE arithmetic rounds correctly (the
//! result is bit for bit what `f64::from_str` gives); other numbers go to `f64::from_str`.

use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod draws;
mod join;
mod jsonl;
mod jsonl_lists;
mod lists;

/// The version of this library's C ABI: `prfeval._io.native_lib` refuses a library whose
/// `prf_abi_version()` is not the one it was written for (and reads runs without it).
/// Raise it whenever a signature, a struct or the meaning of a field changes.
pub const ABI_VERSION: u32 = 8;

const BLOCK: usize = 16 << 20;
/// A run line's grade when its document is not judged for its query.
const NO_GRADE: i16 = i16::MIN;
const NEVER: u32 = u32::MAX;

/// Why the pass stopped (`status[0]`); `status[1]` is the line (1-based) where it did.
const OK: i64 = 0;
const QRELS_LAYOUT: i64 = 1;
const RUN_LAYOUT: i64 = 2;
const NOT_GROUPED: i64 = 3;
const REPEATED_JUDGMENT: i64 = 4;
const TOO_MANY_RESULTS: i64 = 5;
const TOO_LARGE: i64 = 6;
/// The pass panicked (a bug): caught at the C boundary, reported as a refusal.
const FAILED: i64 = 7;

/// Each reason's words, for Python's messages (`prf_reason`).
const REASONS: [&str; 8] = [
    "\0",
    "the qrels are not in the plain layout\0",
    "the run is not in the plain layout\0",
    "the run is not grouped by query\0",
    "a judgment is repeated\0",
    "a query has more results than one query may have\0",
    "the input is too large for the pass\0",
    "the compiled pass failed (a bug: please report it)\0",
];

extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: c_int) -> c_int;
}
const MADV_DONTNEED: c_int = 4;
const PAGE: usize = 4096;

// ------------------------------------------------------------------------------------------
// Keys and hashing

/// The first 16 bytes of a key as two little-endian words (zero past its end).
#[inline(always)]
fn words(buf: &[u8], s: usize, len: usize) -> (u64, u64) {
    if s + 16 <= buf.len() && len <= 16 {
        // Safety: s + 16 <= buf.len(), so both unaligned reads are inside the buffer.
        let (a, b) = unsafe {
            let p = buf.as_ptr().add(s);
            (
                u64::from_le(std::ptr::read_unaligned(p as *const u64)),
                u64::from_le(std::ptr::read_unaligned(p.add(8) as *const u64)),
            )
        };
        if len >= 16 {
            (a, b)
        } else if len > 8 {
            (a, b & (u64::MAX >> (8 * (16 - len))))
        } else if len == 8 {
            (a, 0)
        } else {
            (a & (u64::MAX >> (8 * (8 - len))), 0)
        }
    } else {
        let mut k = [0u8; 16];
        let n = len.min(16);
        k[..n].copy_from_slice(&buf[s..s + n]);
        (u64::from_le_bytes(k[..8].try_into().unwrap()), u64::from_le_bytes(k[8..].try_into().unwrap()))
    }
}

#[inline(always)]
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 32)).wrapping_mul(0xd6e8_feb8_6659_fd93);
    x ^ (x >> 32)
}

/// A key's hash: its words and length multiplied and folded (bytes past 16 folded in too).
#[inline(always)]
fn hash_key(buf: &[u8], s: usize, len: usize, w: (u64, u64)) -> u64 {
    let mut h = (w.0 ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9)
        ^ (w.1 ^ len as u64).wrapping_mul(0x94d0_49bb_1331_11eb);
    if len > 16 {
        for &c in &buf[s + 16..s + len] {
            h = (h ^ c as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    mix(h)
}

// ------------------------------------------------------------------------------------------
// Tables

/// One slot: the key's first 16 bytes, its length and code.
#[derive(Clone, Copy)]
#[repr(C)]
struct Slot {
    w0: u64,
    w1: u64,
    code: u32, // NEVER when empty
    len: u16,
}

const EMPTY_SLOT: Slot = Slot { w0: 0, w1: 0, code: NEVER, len: 0 };

/// Ids to codes (0, 1, ... in order of first appearance): open addressing, linear probing.
/// Every key's bytes are also kept in `arena` (in code order); keys longer than 16 bytes
/// compare their tails there.
#[derive(Clone)]
struct Table {
    slots: Vec<Slot>,
    mask: usize,
    /// Each code's slot (kept up to date as the table grows).
    slot_of: Vec<u32>,
    off: Vec<usize>,
    arena: Vec<u8>,
}

impl Table {
    fn new(cap: usize) -> Table {
        let cap = cap.next_power_of_two().max(1024);
        Table { slots: vec![EMPTY_SLOT; cap], mask: cap - 1, slot_of: Vec::new(), off: vec![0], arena: Vec::new() }
    }
    fn len(&self) -> usize {
        self.slot_of.len()
    }
    fn key(&self, c: usize) -> &[u8] {
        &self.arena[self.off[c]..self.off[c + 1]]
    }
    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let mask = cap - 1;
        let mut slots = vec![EMPTY_SLOT; cap];
        for c in 0..self.len() {
            let s = self.slots[self.slot_of[c] as usize];
            let key = &self.arena[self.off[c]..self.off[c + 1]];
            let h = hash_key(key, 0, key.len(), (s.w0, s.w1));
            let mut at = h as usize & mask;
            while slots[at].code != NEVER {
                at = (at + 1) & mask;
            }
            slots[at] = s;
            self.slot_of[c] = at as u32;
        }
        self.slots = slots;
        self.mask = mask;
    }
    /// The code of the key `buf[s..s + len]`, inserted if new (for keys met once a run of
    /// lines, where the hash need not be computed ahead and prefetched).
    #[inline(always)]
    fn code_of(&mut self, buf: &[u8], s: usize, len: usize) -> u32 {
        let w = words(buf, s, len);
        let slot = self.find(buf, s, len, w, hash_key(buf, s, len, w));
        self.slots[slot].code
    }
    /// The slot of the key `buf[s..s + len]` (words `w`, hash `h`), inserted if new.
    #[inline(always)]
    fn find(&mut self, buf: &[u8], s: usize, len: usize, w: (u64, u64), h: u64) -> usize {
        let mut at = h as usize & self.mask;
        loop {
            let slot = &self.slots[at];
            if slot.code == NEVER {
                break;
            }
            if slot.w0 == w.0 && slot.w1 == w.1 && slot.len as usize == len {
                let c = slot.code as usize;
                if len <= 16 || self.arena[self.off[c] + 16..self.off[c + 1]] == buf[s + 16..s + len] {
                    return at;
                }
            }
            at = (at + 1) & self.mask;
        }
        let c = self.len();
        self.slots[at] = Slot { w0: w.0, w1: w.1, code: c as u32, len: len as u16 };
        self.slot_of.push(at as u32);
        self.arena.extend_from_slice(&buf[s..s + len]);
        self.off.push(self.arena.len());
        if 2 * self.len() > self.slots.len() {
            self.grow();
            return self.slot_of[c] as usize;
        }
        at
    }
}

// ------------------------------------------------------------------------------------------
// Parsing

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Appends the ASCII digit `c` to the mantissa `m` while it holds fewer than 19 significant
/// digits (leading zeros do not count) and says whether it did; a later digit only sets `lost`.
#[inline(always)]
fn take_digit(m: &mut u64, digits: &mut i32, lost: &mut bool, c: u8) -> bool {
    let d = (c - b'0') as u64;
    if *digits < 19 {
        if *m != 0 || d != 0 {
            *digits += 1;
        }
        *m = *m * 10 + d;
        true
    } else {
        *lost = true;
        false
    }
}

/// A decimal `-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`, or `None` (then the line is refused).
#[inline]
fn parse_score(t: &[u8]) -> Option<f64> {
    let mut i = 0;
    let neg = t.first() == Some(&b'-');
    if neg {
        i = 1;
    }
    let mut m: u64 = 0;
    let mut digits = 0; // significant digits taken into m (leading zeros not counted)
    let mut lost = false; // digits beyond 19
    let mut exp: i64 = 0;
    let int0 = i;
    while i < t.len() && t[i].is_ascii_digit() {
        if !take_digit(&mut m, &mut digits, &mut lost, t[i]) {
            exp += 1; // an integer digit past the 19th still scales the value
        }
        i += 1;
    }
    if i == int0 {
        return None;
    }
    if i < t.len() && t[i] == b'.' {
        i += 1;
        let f0 = i;
        while i < t.len() && t[i].is_ascii_digit() {
            if take_digit(&mut m, &mut digits, &mut lost, t[i]) {
                exp -= 1; // a fraction digit taken divides by ten; one past the 19th is lost
            }
            i += 1;
        }
        if i == f0 {
            return None;
        }
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        i += 1;
        let mut eneg = false;
        if i < t.len() && (t[i] == b'-' || t[i] == b'+') {
            eneg = t[i] == b'-';
            i += 1;
        }
        let e0 = i;
        let mut e: i64 = 0;
        while i < t.len() && t[i].is_ascii_digit() {
            e = (e * 10 + (t[i] - b'0') as i64).min(1 << 40);
            i += 1;
        }
        if i == e0 {
            return None;
        }
        exp += if eneg { -e } else { e };
    }
    if i != t.len() {
        return None;
    }
    let v = if !lost && m < (1u64 << 53) && (-22..=22).contains(&exp) {
        let x = m as f64;
        if exp >= 0 { x * POW10[exp as usize] } else { x / POW10[(-exp) as usize] }
    } else {
        // Safety of the unwrap: the bytes are ASCII digits, signs, '.', 'e'.
        let s = std::str::from_utf8(t).ok()?;
        return s.parse::<f64>().ok().filter(|v| v.is_finite());
    };
    Some(if neg { -v } else { v })
}

/// A grade `-?[0-9]{1,4}` (it then fits the slots' 16 bits), or `None`.
#[inline]
fn parse_grade(t: &[u8]) -> Option<i32> {
    let (neg, d) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        _ => (false, t),
    };
    if d.is_empty() || d.len() > 4 {
        return None;
    }
    let mut g: i32 = 0;
    for &c in d {
        if !c.is_ascii_digit() {
            return None;
        }
        g = g * 10 + (c - b'0') as i32;
    }
    Some(if neg { -g } else { g })
}

/// A parsed line's doc id: where it is, its words and hash.
#[derive(Clone, Copy, Default)]
struct DocRef {
    pos: usize,
    len: u32,
    h: u64,
    w: (u64, u64),
}

/// A run of lines of one query within a chunk: its first row (of the chunk) and its id.
#[derive(Clone, Copy)]
struct QueryRun {
    row: usize,
    pos: usize,
    len: usize,
}

/// Bit masks of 64 bytes at `p`: bytes <= b' ', b'\n', b' ', and bytes >= 0x80.
///
/// # Safety
/// `p` must be valid for 64 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn masks64(p: *const u8) -> (u64, u64, u64, u64) {
    use std::arch::x86_64::*;
    let (mut le, mut nl, mut sp, mut hi) = (0u64, 0u64, 0u64, 0u64);
    let space = _mm_set1_epi8(b' ' as i8);
    let newline = _mm_set1_epi8(b'\n' as i8);
    for k in 0..4 {
        let v = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
        let shift = 16 * k as u32;
        sp |= ((_mm_movemask_epi8(_mm_cmpeq_epi8(v, space)) as u32 as u64) << shift) as u64;
        nl |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)) as u32 as u64) << shift;
        le |= (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, space), v)) as u32 as u64) << shift;
        hi |= (_mm_movemask_epi8(v) as u32 as u64) << shift;
    }
    (le, nl, sp, hi)
}

/// The fields of the line at `i` from bit masks of its 64 bytes, without a branch a byte:
/// `Some(Ok(end))` (the line's `\n` at `end`, field starts in `starts`, `starts[n]` one past
/// the `\n`), `Some(Err(()))` when the line is not in the plain layout, `None` when the line
/// is not within 64 readable bytes (the byte loop then reads it).
#[inline(always)]
fn split_fast(
    buf: &[u8],
    i: usize,
    e: usize,
    n_fields: usize,
    starts: &mut [usize; 7],
) -> Option<Result<usize, ()>> {
    #[cfg(target_arch = "x86_64")]
    {
        if i + 64 > buf.len() {
            return None;
        }
        // Safety: i + 64 <= buf.len().
        let (le, nl, sp, hi) = unsafe { masks64(buf.as_ptr().add(i)) };
        if nl == 0 {
            return None;
        }
        let end = nl.trailing_zeros() as usize;
        if i + end >= e {
            return None;
        }
        let line = (1u64 << end) - 1;
        let seps = sp & line;
        // No control byte but the line end; no empty field (at either end, or between two
        // separators); no empty line.
        if end == 0
            || le & line != seps
            || seps & 1 != 0
            || seps & (seps >> 1) != 0
            || (seps >> (end - 1)) & 1 != 0
        {
            return Some(Err(()));
        }
        let mut m = seps;
        starts[0] = i;
        for f in 1..n_fields {
            if m == 0 {
                return Some(Err(()));
            }
            starts[f] = i + m.trailing_zeros() as usize + 1;
            m &= m - 1;
        }
        if m != 0 {
            return Some(Err(()));
        }
        starts[n_fields] = i + end + 1;
        if hi & line != 0 && std::str::from_utf8(&buf[i..i + end]).is_err() {
            return Some(Err(()));
        }
        Some(Ok(i + end))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (buf, i, e, n_fields, starts);
        None
    }
}

/// The same, a byte at a time (lines longer than 64 bytes, the last bytes of the file).
fn split_slow(buf: &[u8], i: usize, e: usize, n_fields: usize, starts: &mut [usize; 7]) -> Result<usize, ()> {
    let mut n = 0;
    let mut high = 0u8;
    let mut k = i;
    starts[0] = i;
    loop {
        let c = if k < e { buf[k] } else { b'\n' };
        if c > b' ' {
            high |= c;
            k += 1;
            continue;
        }
        // A separator or line end: the field is not empty.
        if k == starts[n] || c < b' ' && c != b'\n' {
            return Err(());
        }
        n += 1;
        if c == b'\n' {
            break;
        }
        if n == n_fields {
            return Err(()); // more fields than the layout has
        }
        k += 1;
        starts[n] = k;
    }
    if n != n_fields {
        return Err(());
    }
    starts[n] = k + 1; // as if the separator
    if high >= 0x80 && std::str::from_utf8(&buf[i..k]).is_err() {
        return Err(());
    }
    Ok(k)
}

/// Parse the lines of `buf[s..e]` (a chunk), `rows` of them: docs into `docs`, numbers into
/// `nums` (scores) or `grades`, query runs into `runs`. `Err(row)`: the chunk's row `row`
/// is not in the plain layout.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn parse_chunk(
    buf: &[u8],
    s: usize,
    e: usize,
    n_fields: usize,
    docs: &mut [DocRef],
    nums: &mut [f64],
    grades: &mut [i32],
    runs: &mut Vec<QueryRun>,
) -> Result<(), usize> {
    let run = n_fields == 6;
    let mut i = s;
    let mut row = 0;
    let mut prev_q: (usize, usize) = (0, usize::MAX);
    let mut prev_w = (0u64, 0u64);
    while i < e {
        if buf[i] == b'#' {
            return Err(row);
        }
        // Field starts; a field ends at the byte before the next start.
        let mut starts = [0usize; 7];
        let k = match split_fast(buf, i, e, n_fields, &mut starts) {
            Some(Ok(k)) => k,
            Some(Err(())) => return Err(row),
            None => split_slow(buf, i, e, n_fields, &mut starts).map_err(|_| row)?,
        };
        let q = (starts[0], starts[1] - 1 - starts[0]);
        if q.1 > 0xffff || starts[3] - 1 - starts[2] > 0xffff {
            return Err(row); // ids of 64 KiB and more: the slots keep 16 bits of length
        }
        // The query id changes once a query: compared with the line above's a word at a time.
        let qw = words(buf, q.0, q.1);
        if q.1 != prev_q.1
            || qw != prev_w
            || q.1 > 16 && buf[q.0..q.0 + q.1] != buf[prev_q.0..prev_q.0 + prev_q.1]
        {
            runs.push(QueryRun { row, pos: q.0, len: q.1 });
            prev_q = q;
            prev_w = qw;
        }
        let (ds, dl) = (starts[2], starts[3] - 1 - starts[2]);
        let w = words(buf, ds, dl);
        docs[row] = DocRef { pos: ds, len: dl as u32, h: hash_key(buf, ds, dl, w), w };
        if run {
            match parse_score(&buf[starts[4]..starts[5] - 1]) {
                Some(v) => nums[row] = v,
                None => return Err(row),
            }
        } else {
            match parse_grade(&buf[starts[3]..starts[4] - 1]) {
                Some(g) => grades[row] = g,
                None => return Err(row),
            }
        }
        row += 1;
        i = k + 1;
    }
    Ok(())
}

/// The number of `\n` bytes: 16 bytes at a time with SSE2 (every x86_64 has it).
fn count_newlines(buf: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut total = 0usize;
        let mut big = buf.chunks_exact(16 * 255);
        // Safety: SSE2 is part of x86_64; the loads are unaligned loads inside the chunks.
        unsafe {
            let nl = _mm_set1_epi8(b'\n' as i8);
            let zero = _mm_setzero_si128();
            for c in &mut big {
                let mut acc = _mm_setzero_si128();
                for block in c.chunks_exact(16) {
                    let v = _mm_loadu_si128(block.as_ptr() as *const __m128i);
                    acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
                }
                let sums = _mm_sad_epu8(acc, zero);
                total += (_mm_cvtsi128_si64(sums) + _mm_extract_epi16(sums, 4) as i64) as usize;
            }
        }
        total + big.remainder().iter().filter(|&&c| c == b'\n').count()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        buf.iter().filter(|&&c| c == b'\n').count()
    }
}

fn count_lines(buf: &[u8]) -> usize {
    let nl = count_newlines(buf);
    nl + (!buf.is_empty() && *buf.last().unwrap() != b'\n') as usize
}

// ------------------------------------------------------------------------------------------
// The pass

/// A pointer written at disjoint indices by several threads.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
unsafe impl<T> Sync for Shared<T> {}
unsafe impl<T> Send for Shared<T> {}

/// Where a file's lines are: the blocks of whole lines, and per block the chunks' cuts.
fn cuts(buf: &[u8], pos: usize, threads: usize) -> (usize, Vec<usize>) {
    let mut end = (pos + BLOCK).min(buf.len());
    while end < buf.len() && buf[end - 1] != b'\n' {
        end += 1;
    }
    (end, chunk_cuts(buf, pos, end, threads))
}

/// `buf[pos..end]` (whole lines) cut at line ends into one chunk per thread.
fn chunk_cuts(buf: &[u8], pos: usize, end: usize, threads: usize) -> Vec<usize> {
    let mut cuts = vec![pos];
    for p in 1..threads {
        let mut c = (pos + (end - pos) * p / threads).max(*cuts.last().unwrap());
        while c < end && buf[c - 1] != b'\n' {
            c += 1;
        }
        cuts.push(c);
    }
    cuts.push(end);
    cuts
}

/// The lines of each chunk of a block (`cuts`), counted on one thread each.
fn count_chunks(buf: &[u8], cuts: &[usize]) -> Vec<usize> {
    std::thread::scope(|sc| {
        let handles: Vec<_> = cuts
            .windows(2)
            .map(|w| {
                let (s, e) = (w[0], w[1]);
                sc.spawn(move || count_lines(&buf[s..e]))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Parse one block in parallel (`counts` lines a chunk): per chunk its rows' docs (into
/// `docs`), numbers, query runs.
fn parse_block(
    buf: &[u8],
    cuts: &[usize],
    counts: &[usize],
    n_fields: usize,
    docs: &mut Vec<DocRef>,
    nums: &mut [f64],
    grades: &mut Vec<i32>,
) -> Result<(usize, Vec<QueryRun>), usize> {
    let threads = cuts.len() - 1;
    let rows: usize = counts.iter().sum();
    docs.resize(rows, DocRef::default());
    if n_fields == 4 {
        grades.resize(rows, 0);
    }
    let results: Vec<(Result<(), usize>, Vec<QueryRun>)> = std::thread::scope(|sc| {
        let mut d_rest: &mut [DocRef] = &mut docs[..];
        let mut n_rest: &mut [f64] = nums;
        let mut g_rest: &mut [i32] = &mut grades[..];
        let mut handles = Vec::new();
        for p in 0..threads {
            let c = counts[p];
            let (d, dt) = std::mem::take(&mut d_rest).split_at_mut(c);
            d_rest = dt;
            let (n, nt) = if n_fields == 6 {
                std::mem::take(&mut n_rest).split_at_mut(c)
            } else {
                (&mut [][..], &mut [][..])
            };
            n_rest = nt;
            let (g, gt) = if n_fields == 4 {
                std::mem::take(&mut g_rest).split_at_mut(c)
            } else {
                (&mut [][..], &mut [][..])
            };
            g_rest = gt;
            let (s, e) = (cuts[p], cuts[p + 1]);
            handles.push(sc.spawn(move || {
                let mut runs = Vec::new();
                let r = parse_chunk(buf, s, e, n_fields, d, n, g, &mut runs);
                (r, runs)
            }));
        }
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // The chunks' query runs as one list, by row of the block (a run going on across a cut
    // is one run).
    let mut all: Vec<QueryRun> = Vec::new();
    let mut base = 0;
    for (p, (r, runs)) in results.into_iter().enumerate() {
        if let Err(row) = r {
            return Err(base + row);
        }
        for mut q in runs {
            q.row += base;
            if let Some(last) = all.last() {
                if last.len == q.len && buf[last.pos..last.pos + last.len] == buf[q.pos..q.pos + q.len] {
                    continue;
                }
            }
            all.push(q);
        }
        base += counts[p];
    }
    Ok((rows, all))
}

fn drop_pages(buf: &[u8], from: usize, to: usize) {
    // The block's pages leave the resident set (the page cache keeps them).
    let a = from - from % PAGE;
    if to > a {
        unsafe {
            madvise(buf.as_ptr().add(a) as *mut _, to - a, MADV_DONTNEED);
        }
    }
}

/// The end of the segment that begins at `pos`: the first line end at least `BLOCK` bytes on,
/// then on past the lines of the query that line belongs to, so that a segment holds whole
/// queries (in a run grouped by query) and each query is measured from one segment.
fn segment_end(buf: &[u8], pos: usize) -> usize {
    let len = buf.len();
    let mut end = (pos + BLOCK).min(len);
    while end < len && buf[end - 1] != b'\n' {
        end += 1;
    }
    if end >= len {
        return len;
    }
    // The last line's query id: its bytes up to the first space.
    let mut start = end - 1;
    while start > pos && buf[start - 1] != b'\n' {
        start -= 1;
    }
    let line = &buf[start..end - 1];
    let q = &line[..line.iter().position(|&c| c == b' ').unwrap_or(line.len())];
    while end < len && buf[end..].starts_with(q) && buf.get(end + q.len()) == Some(&b' ') {
        end += buf[end..].iter().position(|&c| c == b'\n').map_or(len - end, |n| n + 1);
    }
    end
}

/// Rows of a JSON Lines run of lists handed out at a time (whole queries: more when one
/// query has more), and the most bytes of doc ids (the segment's vocabulary stays far below
/// its 2 GiB of 32-bit offsets).
const LIST_ROWS: usize = 1 << 19;
const LIST_ID_BYTES: usize = 1 << 28;

/// A line of a JSON Lines run of lists: its part, its first item there, its items, its line
/// number (1 first) and its query id's span.
struct ListLine {
    part: usize,
    at: usize,
    items: usize,
    line: u64,
    query: (usize, usize),
}

/// A JSON Lines run of lists (`prf_run_lists`): its keys, and once read, its lines.
pub struct ListRun {
    layout: jsonl_lists::Layout,
    read: Option<ReadLists>,
}

/// A JSON Lines run of lists parsed whole on the first call, so that it is taken or refused
/// as a whole before any of it is measured (a query's lines may be anywhere in the file),
/// then handed out a chunk of whole queries at a time (`chunk`), as a TREC run's segments.
struct ReadLists {
    parts: Vec<jsonl_lists::Part>,
    lines: Vec<ListLine>,
    /// The query runs (lines of one query one after the other): their first line and code.
    runs: Vec<(usize, u32)>,
    /// The next run to hand out; the items before it; all items.
    next: usize,
    done: usize,
    items: usize,
}

impl ReadLists {
    /// Parse `buf` whole, code its queries in `queries` (marking them in `in_run`), and check
    /// what a chunk could refuse: the layout, a query on lines apart, too many results, an
    /// id of 64 KiB or more. Or why not, and the line.
    fn read(buf: &[u8], layout: &jsonl_lists::Layout, max_results: usize, threads: usize,
            queries: &mut Table, in_run: &mut Vec<bool>) -> Result<ReadLists, (i64, usize)> {
        let names = layout.names();
        let limits = jsonl_lists::Limits { max_depth: layout.max_depth, max_items: max_results as u64, by_span: true };
        let parts = jsonl_lists::read_parts(buf, layout.keys(&names), limits, threads)
            .map_err(|line| (RUN_LAYOUT, line as usize))?;
        let mut lines = Vec::new();
        let (mut long, mut line0) = (false, 0u64);
        for (part, p) in parts.iter().enumerate() {
            p.rows(line0, |line, query, at, docs| {
                long |= query.1 - query.0 > 0xffff || docs.iter().any(|&(s, e)| e - s > 0xffff);
                lines.push(ListLine { part, at, items: docs.len(), line, query });
            });
            line0 += p.lines();
        }
        if long {
            return Err((RUN_LAYOUT, 1)); // the slots keep 16 bits of length
        }
        let items: usize = parts.iter().map(jsonl_lists::Part::items).sum();
        if items >= u32::MAX as usize {
            return Err((TOO_LARGE, 1)); // a row's number is 32 bits
        }
        let mut runs: Vec<(usize, u32)> = Vec::new();
        let mut sizes: Vec<usize> = Vec::new();
        for (k, l) in lines.iter().enumerate() {
            let (qs, qe) = l.query;
            let same = runs.last().is_some_and(|&(first, _)| {
                let (ps, pe) = lines[first].query;
                buf[ps..pe] == buf[qs..qe]
            });
            if same {
                *sizes.last_mut().unwrap() += l.items;
                continue;
            }
            let code = queries.code_of(buf, qs, qe - qs);
            let c = code as usize;
            if c < in_run.len() && in_run[c] {
                return Err((NOT_GROUPED, l.line as usize));
            }
            if c >= in_run.len() {
                in_run.resize(c + 1, false);
            }
            in_run[c] = true;
            runs.push((k, code));
            sizes.push(l.items);
        }
        if let Some(k) = sizes.iter().position(|&n| n > max_results) {
            return Err((TOO_MANY_RESULTS, lines[runs[k].0].line as usize));
        }
        Ok(ReadLists { parts, lines, runs, next: 0, done: 0, items })
    }

    /// The next chunk of whole queries: its end (in bytes, as far as its share of the items
    /// reaches; the whole text for the last), its rows and query runs, and their codes; the
    /// docs into `refs`, the scores (zeros without scores) and each row's line into `out`.
    fn chunk(&mut self, buf: &[u8], scored: bool, refs: &mut Vec<DocRef>, out: &mut Segment)
        -> (usize, usize, Vec<QueryRun>, Vec<u32>) {
        let (mut runs, mut codes) = (Vec::new(), Vec::new());
        let (mut rows, mut bytes) = (0usize, 0usize);
        refs.clear();
        while self.next < self.runs.len() && (runs.is_empty() || (rows < LIST_ROWS && bytes < LIST_ID_BYTES)) {
            let (first, code) = self.runs[self.next];
            let last = self.runs.get(self.next + 1).map_or(self.lines.len(), |r| r.0);
            let (qs, qe) = self.lines[first].query;
            runs.push(QueryRun { row: rows, pos: qs, len: qe - qs });
            codes.push(code);
            for l in &self.lines[first..last] {
                let p = &self.parts[l.part];
                for &(s, e) in p.doc_spans(l.at, l.items) {
                    let len = e - s;
                    let w = words(buf, s, len);
                    refs.push(DocRef { pos: s, len: len as u32, h: hash_key(buf, s, len, w), w });
                    bytes += len;
                }
                if scored {
                    out.scores.extend_from_slice(p.item_scores(l.at, l.items));
                }
                out.row_line.extend(std::iter::repeat_n(l.line as u32, l.items));
                rows += l.items;
            }
            self.next += 1;
        }
        if !scored {
            out.scores = vec![0.0; rows];
        }
        self.done += rows;
        let end = if self.next == self.runs.len() {
            buf.len()
        } else {
            (buf.len() as u128 * self.done as u128 / self.items.max(1) as u128) as usize
        };
        (end.min(buf.len()), rows, runs, codes)
    }
}

/// The judgments, parsed once and never changed: any number of runs are read against them.
/// Grouped by query code (CSR, each query's in file order): per judgment its doc id's hash,
/// its bytes and its grade.
pub struct Judged {
    /// [why it stopped (OK: it did not), line]
    status: Vec<i64>,
    queries: Table,
    j_start: Vec<i64>,
    j_hash: Vec<u64>,
    /// Judgment i's doc id is `j_arena[j_off[i]..j_off[i + 1]]`.
    j_off: Vec<usize>,
    j_arena: Vec<u8>,
    j_grade: Vec<i32>,
}

impl Judged {
    #[inline(always)]
    fn id(&self, i: usize) -> &[u8] {
        &self.j_arena[self.j_off[i]..self.j_off[i + 1]]
    }
}

impl Judged {
    fn new(status: i64) -> Judged {
        Judged {
            status: vec![status, 0],
            queries: Table::new(1 << 12),
            j_start: Vec::new(),
            j_hash: Vec::new(),
            j_off: vec![0],
            j_arena: Vec::new(),
            j_grade: Vec::new(),
        }
    }
}

/// The judgments as they were read, in file order: each one's query code, doc hash, grade
/// and doc id (`arena[off[i]..off[i + 1]]`).
#[derive(Default)]
struct Read {
    jq: Vec<u32>,
    jh: Vec<u64>,
    jg: Vec<i32>,
    arena: Vec<u8>,
    off: Vec<usize>,
}

fn judge(qrels: &[u8], threads: usize) -> Judged {
    let threads = threads.clamp(1, 64);
    let mut judged = Judged::new(OK);
    let mut read = Read { off: vec![0], ..Read::default() };
    let Read { jq, jh, jg, arena, off } = &mut read;
    let (mut docs, mut grades) = (Vec::new(), Vec::new());
    let (mut pos, mut line0) = (0, 0);
    while pos < qrels.len() {
        let (end, cut) = cuts(qrels, pos, threads);
        let counts = count_chunks(qrels, &cut);
        let (rows, runs) = match parse_block(qrels, &cut, &counts, 4, &mut docs, &mut [], &mut grades) {
            Ok(parsed) => parsed,
            Err(r) => {
                judged.status = vec![QRELS_LAYOUT, (line0 + r + 1) as i64];
                return judged;
            }
        };
        for (k, q) in runs.iter().enumerate() {
            let e = runs.get(k + 1).map_or(rows, |n| n.row);
            let code = judged.queries.code_of(qrels, q.pos, q.len);
            jq.extend(std::iter::repeat_n(code, e - q.row));
        }
        for d in &docs[..rows] {
            jh.push(d.h);
            arena.extend_from_slice(&qrels[d.pos..d.pos + d.len as usize]);
            off.push(arena.len());
        }
        jg.extend_from_slice(&grades[..rows]);
        drop_pages(qrels, pos, end);
        line0 += rows;
        pos = end;
    }
    finish(judged, read)
}

/// A JSON Lines file of judgments as lists (`prf_judge_lists`): one object a line, a query
/// id and the list of its relevant doc ids (grade 1 each), read by the compiled JSON Lines
/// reader's parser (`jsonl_lists`, its plain case); a line without ids judges nothing.
fn judge_lists(qrels: &[u8], layout: &jsonl_lists::Layout, threads: usize) -> Judged {
    let mut judged = Judged::new(OK);
    let names = layout.names();
    let limits = jsonl_lists::Limits { max_depth: layout.max_depth, max_items: u64::MAX, by_span: true };
    let parts = match jsonl_lists::read_parts(qrels, layout.keys(&names), limits, threads) {
        Ok(parts) => parts,
        Err(line) => {
            judged.status = vec![QRELS_LAYOUT, line as i64];
            return judged;
        }
    };
    let mut read = Read { off: vec![0], ..Read::default() };
    let mut long = false;
    jsonl_lists::for_each_row(&parts, |_, (qs, qe), docs| {
        if docs.is_empty() {
            return;
        }
        long |= qe - qs > 0xffff;
        let code = judged.queries.code_of(qrels, qs, qe - qs);
        for &(s, e) in docs {
            long |= e - s > 0xffff;
            read.jq.push(code);
            read.jh.push(hash_key(qrels, s, e - s, words(qrels, s, e - s)));
            read.jg.push(1);
            read.arena.extend_from_slice(&qrels[s..e]);
            read.off.push(read.arena.len());
        }
    });
    if long {
        judged.status = vec![QRELS_LAYOUT, 0];
        return judged;
    }
    finish(judged, read)
}

/// The judgments `read` (their queries coded in `judged`) grouped by query, each query's in
/// file order; refused when there are none (prfeval's reader says so) or one is repeated.
fn finish(mut judged: Judged, read: Read) -> Judged {
    let Read { jq, jh, jg, arena, off } = read;
    if jq.is_empty() {
        // No judgments: prfeval's reader says so (an error), not the pass.
        judged.status = vec![QRELS_LAYOUT, 0];
        return judged;
    }
    let n_q = judged.queries.len();
    // By query: a counting sort, stable (file order within a query).
    let mut j_start = vec![0i64; n_q + 1];
    for &q in &jq {
        j_start[q as usize + 1] += 1;
    }
    for q in 0..n_q {
        j_start[q + 1] += j_start[q];
    }
    let mut order = vec![0u32; jq.len()];
    let mut fill: Vec<i64> = j_start[..n_q].to_vec();
    for (i, &q) in jq.iter().enumerate() {
        order[fill[q as usize] as usize] = i as u32;
        fill[q as usize] += 1;
    }
    drop(jq);
    judged.j_hash = order.iter().map(|&i| jh[i as usize]).collect();
    judged.j_grade = order.iter().map(|&i| jg[i as usize]).collect();
    judged.j_arena.reserve(arena.len());
    judged.j_off.reserve(order.len());
    for &i in &order {
        let i = i as usize;
        judged.j_arena.extend_from_slice(&arena[off[i]..off[i + 1]]);
        judged.j_off.push(judged.j_arena.len());
    }
    judged.j_start = j_start;
    // A doc judged twice for one query, found query by query in a small table.
    let mut probe = Probe::default();
    for q in 0..n_q {
        let (a, b) = (judged.j_start[q] as usize, judged.j_start[q + 1] as usize);
        probe.begin(b - a);
        for i in a..b {
            let h = judged.j_hash[i];
            let (at, found) = probe.find(h, |e| judged.id(e.judgment as usize) == judged.id(i));
            if found {
                judged.status = vec![REPEATED_JUDGMENT, 0];
                return judged;
            }
            probe.entries[at] = Entry { h, gen: probe.gen, first: NEVER, code: NEVER, judgment: i as u32 };
        }
    }
    judged
}

/// One entry of a [`Probe`]: a doc of the current query, by hash: the row of its first line
/// (`NEVER`: not retrieved yet), its code in the segment (`NEVER`: none yet) and its
/// judgment (`NEVER`: not judged).
#[derive(Clone, Copy, Default)]
struct Entry {
    h: u64,
    gen: u32,
    first: u32,
    code: u32,
    judgment: u32,
}

/// A small open-addressing table (linear probing) of one query's docs, reused query after
/// query: an entry belongs to the current query when its `gen` is the table's, so nothing
/// is cleared between queries. Sized for the query (at most half full), it stays in the
/// core's cache: a line costs a lookup there, not in a table of every doc.
#[derive(Default)]
struct Probe {
    entries: Vec<Entry>,
    gen: u32,
    mask: usize,
}

impl Probe {
    /// Start a query of at most `n` docs.
    fn begin(&mut self, n: usize) {
        let cap = (2 * n).next_power_of_two().max(16);
        if self.entries.len() < cap {
            self.entries.resize(cap, Entry::default());
        }
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            for e in self.entries.iter_mut() {
                e.gen = 0;
            }
            self.gen = 1;
        }
        self.mask = cap - 1;
    }

    /// The slot of the current query's entry for the key hashed `h` (`same` tells whether
    /// an entry of that hash holds the key), and whether it is there; else the empty slot
    /// where it goes.
    #[inline(always)]
    fn find(&self, h: u64, mut same: impl FnMut(&Entry) -> bool) -> (usize, bool) {
        let mut at = h as usize & self.mask;
        loop {
            let e = &self.entries[at];
            if e.gen != self.gen {
                return (at, false);
            }
            if e.h == h && same(e) {
                return (at, true);
            }
            at = (at + 1) & self.mask;
        }
    }
}

/// One segment of a run: whole queries, measured as soon as they are read, in memory of
/// their own (Python reads them while the next segment is being read). Doc codes are the
/// segment's own, dense: its run lines' docs and its queries' judged docs.
#[derive(Default)]
pub struct Segment {
    /// [why the pass stopped (OK: it did not), line, rows, queries, docs, repeated rows,
    /// end (byte), first row, done (no segment is left)]
    status: Vec<i64>,
    scores: Vec<f64>,
    run_doc: Vec<u32>,
    run_grade: Vec<i16>,
    repeated: Vec<u8>,
    /// The segment's queries: where each starts (then the number of rows) and whether it
    /// is judged (its code is below the judged queries' count).
    run_start: Vec<i64>,
    judged: Vec<u8>,
    /// Their ids, as offsets into bytes.
    q_off: Vec<i64>,
    q_arena: Vec<u8>,
    /// Doc ids by the segment's codes, with 32-bit offsets (an Arrow string array's buffers).
    d_off: Vec<i32>,
    d_arena: Vec<u8>,
    /// The judgments of its queries (CSR, by query of the segment): doc code and grade.
    j_start: Vec<i64>,
    j_doc: Vec<u32>,
    j_grade: Vec<i32>,
    /// With an order asked of the run (see `prf_run`): the segment's rows, each query's in
    /// rank order (score descending, ties by doc id descending in byte order, a repeated
    /// id in file order).
    order: Vec<u32>,
    /// A JSON Lines run of lists: each row's line (1 first; empty for a TREC run, whose
    /// rows are its lines).
    row_line: Vec<u32>,
}

/// `status[S_DONE]`: 1 when no segment is left.
const S_DONE: usize = 8;

/// A thread's codes in the current segment (0, 1, ... as its docs are met): their ids.
#[derive(Default)]
struct Codes {
    arena: Vec<u8>,
    lens: Vec<u32>,
}

impl Codes {
    /// A new code, for the doc id `id`.
    #[inline(always)]
    fn push(&mut self, id: &[u8]) -> u32 {
        self.arena.extend_from_slice(id);
        self.lens.push(id.len() as u32);
        (self.lens.len() - 1) as u32
    }
    fn clear(&mut self) {
        self.arena.clear();
        self.lens.clear();
    }
}

/// A run being read against judgments, a segment at a time.
pub struct RunPass {
    threads: usize,
    max_results: usize,
    /// Whether to put each query's rows in rank order: 0 no, 1 by the scores, 2 by the
    /// scores as single precision floats (trec_eval 9 keeps scores as C floats).
    order: u8,
    run: *const u8,
    run_len: usize,
    /// The judgments' CSR (Python keeps the judgments alive while the run is read).
    judged: *const Judged,
    queries: Table,
    n_judged_q: usize,
    /// Each thread's codes in the segment and its table of the current query's docs.
    local: Vec<Codes>,
    probes: Vec<Probe>,
    pos: usize,
    row0: usize,
    in_run: Vec<bool>,
    failed: Option<(i64, i64)>,
    refs: Vec<DocRef>,
    no_grades: Vec<i32>,
    /// A JSON Lines run of lists (`prf_run_lists`); `None` for a TREC run.
    lists: Option<ListRun>,
}

impl RunPass {
    fn judged<'b>(&self) -> &'b Judged {
        // Safety: the judgments outlive the run and do not change while it is read (see
        // `prf_run`), so the reference may outlive this borrow of the run.
        unsafe { &*self.judged }
    }

    fn failed(&mut self, why: i64, line: usize) -> Segment {
        self.failed = Some((why, line as i64));
        Segment { status: vec![why, line as i64, 0, 0, 0, 0, self.pos as i64, self.row0 as i64, 0], ..Segment::default() }
    }

    /// The segment's doc ids (the parts' codes one after the other) and where each part's
    /// codes begin.
    fn vocabulary(&mut self, out: &mut Segment) -> Result<Vec<u32>, ()> {
        let mut base = vec![0u32; self.threads + 1];
        for p in 0..self.threads {
            base[p + 1] = base[p] + self.local[p].lens.len() as u32;
        }
        let arena_len: usize = self.local.iter().map(|l| l.arena.len()).sum();
        if arena_len >= i32::MAX as usize {
            return Err(());
        }
        out.d_off = Vec::with_capacity(base[self.threads] as usize + 1);
        out.d_arena = Vec::with_capacity(arena_len);
        out.d_off.push(0);
        for l in &mut self.local {
            out.d_arena.extend_from_slice(&l.arena);
            let mut at = *out.d_off.last().unwrap();
            out.d_off.extend(l.lens.iter().map(|&n| {
                at += n as i32;
                at
            }));
            l.clear();
        }
        Ok(base)
    }

    /// The ids of the queries `codes`.
    fn query_ids(&self, codes: &[u32], out: &mut Segment) {
        out.q_off = Vec::with_capacity(codes.len() + 1);
        out.q_off.push(0);
        for &c in codes {
            out.q_arena.extend_from_slice(self.queries.key(c as usize));
            out.q_off.push(out.q_arena.len() as i64);
        }
    }

    /// The CSR of the judgments of the queries `codes` (unjudged ones have none).
    fn judged_starts(&self, codes: &[u32]) -> Vec<i64> {
        let j_start = &self.judged().j_start;
        let mut starts = Vec::with_capacity(codes.len() + 1);
        starts.push(0i64);
        for &c in codes {
            let c = c as usize;
            let n = if c < self.n_judged_q { j_start[c + 1] - j_start[c] } else { 0 };
            starts.push(starts.last().unwrap() + n);
        }
        starts
    }

    /// The TREC lines of the segment that begins at `self.pos`: its end, its rows and its
    /// query runs, the docs into `refs` and the scores into `out`; or why not and the line.
    fn parse_trec(&mut self, buf: &[u8], refs: &mut Vec<DocRef>, out: &mut Segment)
        -> Result<(usize, usize, Vec<QueryRun>), (i64, usize)> {
        let (pos, row0, np) = (self.pos, self.row0, self.threads);
        let end = segment_end(buf, pos);
        let cut = chunk_cuts(buf, pos, end, np);
        let counts = count_chunks(buf, &cut);
        let rows: usize = counts.iter().sum();
        if row0 + rows >= u32::MAX as usize {
            return Err((TOO_LARGE, row0 + 1));
        }
        out.scores = vec![0.0; rows];
        let mut no_grades = std::mem::take(&mut self.no_grades);
        let parsed = parse_block(buf, &cut, &counts, 6, refs, &mut out.scores, &mut no_grades);
        self.no_grades = no_grades;
        match parsed {
            Ok((_, runs)) => Ok((end, rows, runs)),
            Err(r) => Err((RUN_LAYOUT, row0 + r + 1)),
        }
    }

    /// The next chunk of a JSON Lines run of lists (`ReadLists::chunk`), the run read whole
    /// on the first call; or why it is refused, and the line.
    fn next_lists(&mut self, buf: &[u8], refs: &mut Vec<DocRef>, out: &mut Segment)
        -> Result<(usize, usize, Vec<QueryRun>, Vec<u32>), (i64, usize)> {
        let mut lists = self.lists.take().expect("a run of lists");
        if lists.read.is_none() {
            let read = ReadLists::read(buf, &lists.layout, self.max_results, self.threads,
                                       &mut self.queries, &mut self.in_run);
            match read {
                Ok(read) => lists.read = Some(read),
                Err(why) => {
                    self.lists = Some(lists);
                    return Err(why);
                }
            }
        }
        let scored = lists.layout.scored();
        let chunk = lists.read.as_mut().expect("read").chunk(buf, scored, refs, out);
        self.lists = Some(lists);
        Ok(chunk)
    }

    fn next(&mut self) -> Segment {
        if let Some((why, line)) = self.failed {
            return Segment { status: vec![why, line, 0, 0, 0, 0, self.pos as i64, self.row0 as i64, 0], ..Segment::default() };
        }
        // Safety: Python keeps the run's mapping alive while the run is read.
        let buf: &[u8] = if self.run_len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(self.run, self.run_len) } };
        let (pos, row0, np) = (self.pos, self.row0, self.threads);
        let mut out = Segment { status: vec![OK, 0, 0, 0, 0, 0, pos as i64, row0 as i64, 0], ..Segment::default() };
        if pos >= buf.len() {
            out.status[S_DONE] = 1;
            return out;
        }
        let mut refs = std::mem::take(&mut self.refs);
        let parsed = if self.lists.is_none() {
            self.parse_trec(buf, &mut refs, &mut out).map(|(end, rows, runs)| (end, rows, runs, None))
        } else {
            self.next_lists(buf, &mut refs, &mut out).map(|(end, rows, runs, codes)| (end, rows, runs, Some(codes)))
        };
        let (end, rows, runs, coded) = match parsed {
            Ok(parsed) => parsed,
            Err((why, line)) => {
                self.refs = refs;
                return self.failed(why, line);
            }
        };
        // Query codes; a query met again after others is a run not grouped by query (a
        // JSON Lines run's were given and checked when it was read).
        out.run_start = runs.iter().map(|q| q.row as i64).chain([rows as i64]).collect();
        let codes = match coded {
            Some(codes) => codes,
            None => {
                let mut codes: Vec<u32> = Vec::with_capacity(runs.len());
                for q in &runs {
                    let code = self.queries.code_of(buf, q.pos, q.len);
                    let c = code as usize;
                    if c < self.in_run.len() && self.in_run[c] {
                        self.refs = refs;
                        return self.failed(NOT_GROUPED, row0 + q.row + 1);
                    }
                    if c >= self.in_run.len() {
                        self.in_run.resize(c + 1, false);
                    }
                    self.in_run[c] = true;
                    codes.push(code);
                }
                codes
            }
        };
        for w in out.run_start.windows(2) {
            if (w[1] - w[0]) as usize > self.max_results {
                self.refs = refs;
                return self.failed(TOO_MANY_RESULTS, row0 + w[0] as usize + self.max_results + 1);
            }
        }
        out.j_start = self.judged_starts(&codes);
        let n_j = *out.j_start.last().unwrap() as usize;
        let j = self.judged();
        out.j_doc = vec![0u32; n_j];
        out.j_grade = Vec::with_capacity(n_j);
        for &c in &codes {
            let c = c as usize;
            if c < self.n_judged_q {
                out.j_grade.extend_from_slice(&j.j_grade[j.j_start[c] as usize..j.j_start[c + 1] as usize]);
            }
        }
        out.run_doc = vec![0u32; rows];
        if self.order != 0 {
            out.order = vec![0u32; rows];
        }
        out.run_grade = vec![NO_GRADE; rows];
        out.repeated = vec![0u8; rows];
        // The join, query by query, each thread over a run of whole queries of about the
        // same number of lines; each thread codes the docs of its queries.
        let bounds = query_bounds(&runs, rows, np);
        let outs = SegmentOut {
            doc: Shared(out.run_doc.as_mut_ptr()),
            grade: Shared(out.run_grade.as_mut_ptr()),
            repeated: Shared(out.repeated.as_mut_ptr()),
            judged_doc: Shared(out.j_doc.as_mut_ptr()),
            order: Shared(out.order.as_mut_ptr()),
        };
        let input = JoinIn {
            buf, docs: &refs, runs: &runs, codes: &codes, rows, j_start: &out.j_start, judged: j,
            n_judged_q: self.n_judged_q, scores: &out.scores, order: self.order,
        };
        std::thread::scope(|sc| {
            for (p, (probe, local)) in self.probes.iter_mut().zip(self.local.iter_mut()).enumerate() {
                let (input, qa, qb) = (&input, bounds[p], bounds[p + 1]);
                sc.spawn(move || join_queries(input, qa, qb, probe, local, outs));
            }
        });
        let base = match self.vocabulary(&mut out) {
            Ok(b) => b,
            Err(()) => {
                self.refs = refs;
                return self.failed(TOO_LARGE, row0 + 1);
            }
        };
        // The threads' codes become the segment's: each thread's after the ones before it.
        for p in 1..np {
            let (qa, qb) = (bounds[p], bounds[p + 1]);
            let row_of = |k: usize| runs.get(k).map_or(rows, |q| q.row);
            for d in &mut out.run_doc[row_of(qa)..row_of(qb)] {
                *d += base[p];
            }
            for d in &mut out.j_doc[out.j_start[qa] as usize..out.j_start[qb] as usize] {
                *d += base[p];
            }
        }
        self.refs = refs;
        out.judged = codes.iter().map(|&c| ((c as usize) < self.n_judged_q) as u8).collect();
        self.query_ids(&codes, &mut out);
        // A JSON Lines run's text is read by its chunks until the last.
        if self.lists.is_none() || end == buf.len() {
            drop_pages(buf, if self.lists.is_none() { pos } else { 0 }, end);
        }
        self.pos = end;
        self.row0 += rows;
        let n_repeated = out.repeated.iter().filter(|&&r| r != 0).count();
        out.status = vec![OK, 0, rows as i64, codes.len() as i64, base[np] as i64, n_repeated as i64, end as i64, row0 as i64, 0];
        out
    }

    /// The judged queries the run never named (in code order, that of the judgments), with
    /// their judgments: a segment without lines.
    fn missing(&mut self) -> Segment {
        let codes: Vec<u32> = (0..self.n_judged_q as u32)
            .filter(|&c| !self.in_run.get(c as usize).copied().unwrap_or(false))
            .collect();
        let mut out = Segment::default();
        out.j_start = self.judged_starts(&codes);
        out.run_start = vec![0; codes.len() + 1];
        let j = self.judged();
        // A query's judgments are of distinct docs: each gets a code of its own.
        for &c in &codes {
            let c = c as usize;
            for i in j.j_start[c] as usize..j.j_start[c + 1] as usize {
                out.j_doc.push(self.local[0].push(j.id(i)));
                out.j_grade.push(j.j_grade[i]);
            }
        }
        let base = match self.vocabulary(&mut out) {
            Ok(b) => b,
            Err(()) => return self.failed(TOO_LARGE, 0),
        };
        let np = self.threads;
        out.judged = vec![1; codes.len()];
        self.query_ids(&codes, &mut out);
        out.status = vec![OK, 0, 0, codes.len() as i64, base[np] as i64, 0, self.run_len as i64, self.row0 as i64, 1];
        out
    }
}

/// What the threads of a segment's join read.
struct JoinIn<'a> {
    buf: &'a [u8],
    docs: &'a [DocRef],
    /// The segment's queries: their runs of lines and codes.
    runs: &'a [QueryRun],
    codes: &'a [u32],
    rows: usize,
    /// Where each query's judgments go in the segment's (CSR).
    j_start: &'a [i64],
    judged: &'a Judged,
    n_judged_q: usize,
    scores: &'a [f64],
    /// `RunPass::order`.
    order: u8,
}

/// Where the threads write: per row its doc code, grade and repeat; the judged docs' codes.
#[derive(Clone, Copy)]
struct SegmentOut {
    doc: Shared<u32>,
    grade: Shared<i16>,
    repeated: Shared<u8>,
    judged_doc: Shared<u32>,
    order: Shared<u32>,
}

/// Cut the segment's queries into `np` runs of whole queries of about `rows / np` lines
/// each: thread p takes queries `bounds[p]..bounds[p + 1]`.
fn query_bounds(runs: &[QueryRun], rows: usize, np: usize) -> Vec<usize> {
    let mut bounds = vec![0usize];
    for p in 1..np {
        let k = runs.partition_point(|q| q.row < rows * p / np);
        bounds.push(k.max(*bounds.last().unwrap()));
    }
    bounds.push(runs.len());
    bounds
}

/// Join the queries `qa..qb` of a segment with their judgments, one query at a time in a
/// table of its docs: its judgments go in first, then each line finds its doc there (its
/// judgment, or an earlier line of the same doc: a repeat) or adds it. Writes each row's doc
/// code (in `local`), grade and repeat, and the codes of the queries' judged docs (a doc
/// never retrieved gets its code last).
#[inline(never)]
fn join_queries(input: &JoinIn, qa: usize, qb: usize, probe: &mut Probe, local: &mut Codes, out: SegmentOut) {
    let (j, buf, docs) = (input.judged, input.buf, input.docs);
    let mut slot_of_j: Vec<u32> = Vec::new();
    let mut ranked: Vec<u32> = Vec::new();
    for k in qa..qb {
        let (s, e) = (input.runs[k].row, input.runs.get(k + 1).map_or(input.rows, |n| n.row));
        let c = input.codes[k] as usize;
        let (a, b) = if c < input.n_judged_q { (j.j_start[c] as usize, j.j_start[c + 1] as usize) } else { (0, 0) };
        probe.begin(e - s + b - a);
        slot_of_j.clear();
        for i in a..b {
            let h = j.j_hash[i];
            // A query's judgments are of distinct docs (`judge` checked): no key to compare.
            let (at, _) = probe.find(h, |_| false);
            probe.entries[at] = Entry { h, gen: probe.gen, first: NEVER, code: NEVER, judgment: i as u32 };
            slot_of_j.push(at as u32);
        }
        for r in s..e {
            let d = &docs[r];
            let id = &buf[d.pos..d.pos + d.len as usize];
            let (at, found) = probe.find(d.h, |en| {
                if en.judgment != NEVER {
                    j.id(en.judgment as usize) == id
                } else {
                    let f = &docs[en.first as usize];
                    f.len == d.len && f.w == d.w && (d.len <= 16 || buf[f.pos..f.pos + f.len as usize] == *id)
                }
            });
            let en = &mut probe.entries[at];
            // Safety: the rows of queries qa..qb are written by this thread only.
            unsafe {
                if !found {
                    let code = local.push(id);
                    *en = Entry { h: d.h, gen: probe.gen, first: r as u32, code, judgment: NEVER };
                    *out.doc.0.add(r) = code;
                    continue;
                }
                if en.first == NEVER {
                    en.first = r as u32;
                    en.code = local.push(id);
                } else {
                    *out.repeated.0.add(en.first as usize) = 1;
                    *out.repeated.0.add(r) = 1;
                }
                *out.doc.0.add(r) = en.code;
                if en.judgment != NEVER {
                    *out.grade.0.add(r) = j.j_grade[en.judgment as usize] as i16;
                }
            }
        }
        let at_out = input.j_start[k] as usize;
        for (t, &at) in slot_of_j.iter().enumerate() {
            let en = &mut probe.entries[at as usize];
            if en.code == NEVER {
                en.code = local.push(j.id(a + t));
            }
            // Safety: the judgments of queries qa..qb are written by this thread only.
            unsafe { *out.judged_doc.0.add(at_out + t) = en.code };
        }
        if input.order != 0 {
            rank_order(input, s, e, &mut ranked);
            // Safety: the rows of queries qa..qb are written by this thread only.
            unsafe { std::ptr::copy_nonoverlapping(ranked.as_ptr(), out.order.0.add(s), e - s) };
        }
    }
}

/// The rows `s..e` of one query in rank order, in `ranked`: score descending (as single
/// precision with `order` 2), ties by doc id descending (bytes, as trec_eval's `strcmp`), a
/// repeated id in file order (the sorts are stable). A run written best first, as most are,
/// costs a pass to check it and a sort of each tie group; any other, one sort. No score is
/// NaN: the pass reads decimal numbers only (a run with `nan` is Arrow's), and a decimal
/// beyond the range is infinite, which is ordered.
fn rank_order(input: &JoinIn, s: usize, e: usize, ranked: &mut Vec<u32>) {
    let (buf, docs) = (input.buf, input.docs);
    let single = input.order == 2;
    let key = |r: u32| -> f64 {
        let v = input.scores[r as usize];
        if single { v as f32 as f64 } else { v }
    };
    let id = |r: u32| -> &[u8] {
        let d = &docs[r as usize];
        &buf[d.pos..d.pos + d.len as usize]
    };
    ranked.clear();
    ranked.extend(s as u32..e as u32);
    if ranked.windows(2).all(|w| key(w[1]) <= key(w[0])) {
        let mut a = 0;
        while a < ranked.len() {
            let ka = key(ranked[a]);
            let mut b = a + 1;
            while b < ranked.len() && key(ranked[b]) == ka {
                b += 1;
            }
            if b - a > 1 {
                ranked[a..b].sort_by(|&x, &y| id(y).cmp(id(x)));
            }
            a = b;
        }
    } else {
        let by_score = |x: u32, y: u32| key(y).partial_cmp(&key(x)).unwrap_or(std::cmp::Ordering::Equal);
        ranked.sort_by(|&x, &y| by_score(x, y).then_with(|| id(y).cmp(id(x))));
    }
}

// ------------------------------------------------------------------------------------------
// The C ABI

unsafe fn bytes<'a>(p: *const u8, n: usize) -> &'a [u8] {
    if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

/// Run `f`, turning a panic into `fallback`: no panic crosses the C boundary (which would
/// abort the Python process).
pub(crate) fn guarded<T>(fallback: impl FnOnce() -> T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| fallback())
}

/// The version of the C ABI (`ABI_VERSION`), checked by Python on load.
#[no_mangle]
pub extern "C" fn prf_abi_version() -> u32 {
    ABI_VERSION
}

/// The words of reason `code` (a NUL-terminated string; empty for 0 and unknown codes).
#[no_mangle]
pub extern "C" fn prf_reason(code: i64) -> *const c_char {
    let text = usize::try_from(code).ok().and_then(|c| REASONS.get(c)).unwrap_or(&REASONS[0]);
    text.as_ptr() as *const c_char
}

/// Parse the judgments `qrels[..qrels_len]` on `threads` threads; free with `prf_free_judged`.
/// A panic gives judgments refused with `FAILED`.
///
/// # Safety
/// `qrels` must be valid for `qrels_len` bytes for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn prf_judge(qrels: *const u8, qrels_len: usize, threads: usize) -> *mut Judged {
    Box::into_raw(Box::new(guarded(|| Judged::new(FAILED), || judge(bytes(qrels, qrels_len), threads))))
}

/// `prf_judge` for a JSON Lines file of judgments as lists whose first line's keys are
/// `keys` (a query id and its relevant doc ids, grade 1 each; see `judge_lists`): refused
/// (`prf_judged_status`) when it is not in that reader's plain case, or the keys are not 1
/// to 64 with a query id and doc ids among them.
///
/// # Safety
/// As `prf_judge`; `keys` must be valid for the call (they are not kept).
#[no_mangle]
pub unsafe extern "C" fn prf_judge_lists(qrels: *const u8, qrels_len: usize, threads: usize, keys: *const jsonl_lists::ListKeys) -> *mut Judged {
    Box::into_raw(Box::new(guarded(|| Judged::new(FAILED), || match jsonl_lists::Layout::of(&*keys) {
        Some(layout) => judge_lists(bytes(qrels, qrels_len), &layout, threads),
        None => Judged::new(QRELS_LAYOUT),
    })))
}

/// Why the judgments were refused (0: they were not) and the line, in `line`.
///
/// # Safety
/// `j` must come from `prf_judge` and not be freed; `line` must be writable.
#[no_mangle]
pub unsafe extern "C" fn prf_judged_status(j: *const Judged, line: *mut i64) -> i64 {
    let j = &*j;
    *line = j.status[1];
    j.status[0]
}

/// Begin reading the run `run[..run_len]` against the judgments `j` (accepted ones) on
/// `threads` threads, refusing a query with more than `max_results` lines (the threads of
/// the judgments' parse need not be the run's). The run only reads the judgments:
/// they may serve any number of runs, one after the other or at once. With `order` 1 each
/// segment also gives its rows in rank order (by score, then doc id; see `rank_order`), with
/// 2 by the scores as single precision floats. Null if it panicked.
///
/// # Safety
/// `j` must come from `prf_judge`, with status 0, and outlive the run; `run` must stay valid
/// for `run_len` bytes until the run is freed with `prf_free_run`.
#[no_mangle]
pub unsafe extern "C" fn prf_run(j: *const Judged, run: *const u8, run_len: usize, max_results: usize, threads: usize, order: u8) -> *mut RunPass {
    guarded(std::ptr::null_mut, || {
        let judged = &*j;
        let threads = threads.clamp(1, 64);
        let n_judged_q = judged.j_start.len().saturating_sub(1);
        Box::into_raw(Box::new(RunPass {
            threads,
            max_results,
            order: order.min(2),
            run,
            run_len,
            judged: j,
            queries: judged.queries.clone(),
            n_judged_q,
            local: (0..threads).map(|_| Codes::default()).collect(),
            probes: (0..threads).map(|_| Probe::default()).collect(),
            pos: 0,
            row0: 0,
            in_run: vec![false; n_judged_q],
            failed: None,
            refs: Vec::new(),
            no_grades: Vec::new(),
            lists: None,
        }))
    })
}

/// `prf_run` for a JSON Lines run of lists whose first line's keys are `keys` (see
/// `jsonl_lists`): parsed whole on the first call, then a chunk of whole queries a call
/// (`ReadLists`), when every line is plain (else the first segment says why not, and prfeval's other readers read it). Each
/// item of a list is a row; its line is in the segment's `row_line`. Null if it panicked or
/// the keys are not 1 to 64 with a query id and doc ids among them.
///
/// # Safety
/// As `prf_run`; `keys` must be valid for the call (the keys are copied).
#[no_mangle]
pub unsafe extern "C" fn prf_run_lists(j: *const Judged, run: *const u8, run_len: usize, max_results: usize, threads: usize, order: u8, keys: *const jsonl_lists::ListKeys) -> *mut RunPass {
    guarded(std::ptr::null_mut, || {
        let Some(layout) = jsonl_lists::Layout::of(&*keys) else { return std::ptr::null_mut() };
        let r = prf_run(j, run, run_len, max_results, threads, order);
        if !r.is_null() {
            (*r).lists = Some(ListRun { layout, read: None });
        }
        r
    })
}

/// A segment refused with `FAILED` after a panic; the run then gives only such segments.
unsafe fn panicked(r: *mut RunPass) -> Segment {
    (*r).failed = Some((FAILED, 0));
    Segment { status: vec![FAILED, 0, 0, 0, 0, 0, (*r).pos as i64, (*r).row0 as i64, 0], ..Segment::default() }
}

/// The run's next segment (`done` is 1 when none is left; then call `prf_missing`).
///
/// # Safety
/// `r` must come from `prf_run` and not be freed, and not be in use on another thread.
#[no_mangle]
pub unsafe extern "C" fn prf_next(r: *mut RunPass) -> *mut Segment {
    Box::into_raw(Box::new(guarded(|| panicked(r), || (*r).next())))
}

/// The judged queries the run never named, as a segment without lines (after the last).
///
/// # Safety
/// As `prf_next`.
#[no_mangle]
pub unsafe extern "C" fn prf_missing(r: *mut RunPass) -> *mut Segment {
    Box::into_raw(Box::new(guarded(|| panicked(r), || (*r).missing())))
}

/// One array of a segment, in the pass's memory.
#[repr(C)]
pub struct ArrayView {
    pub data: *const u8,
    pub len: usize,
}

impl ArrayView {
    fn of<T>(v: &[T]) -> ArrayView {
        ArrayView { data: v.as_ptr() as *const u8, len: v.len() }
    }
}

/// A segment as Python reads it, field by field (`prfeval._io.native_segments.SegmentView`
/// mirrors it; `ABI_VERSION` changes with it). See `Segment` for each array.
#[repr(C)]
pub struct SegmentView {
    /// Why the pass stopped (0: it did not; `prf_reason` gives the words) and the line.
    pub reason: i64,
    pub line: i64,
    pub rows: i64,
    pub queries: i64,
    pub docs: i64,
    pub repeated_rows: i64,
    /// The byte after the segment, its first row (of the run), and 1 when none is left.
    pub end: i64,
    pub first_row: i64,
    pub done: i64,
    pub scores: ArrayView,
    pub run_doc: ArrayView,
    pub run_grade: ArrayView,
    pub repeated: ArrayView,
    pub run_start: ArrayView,
    pub judged: ArrayView,
    pub q_off: ArrayView,
    pub q_arena: ArrayView,
    pub d_off: ArrayView,
    pub d_arena: ArrayView,
    pub j_start: ArrayView,
    pub j_doc: ArrayView,
    pub j_grade: ArrayView,
    pub order: ArrayView,
    pub row_line: ArrayView,
}

/// Fill `out` with the segment `s`'s fields and arrays (valid until the segment is freed).
///
/// # Safety
/// `s` must come from `prf_next` or `prf_missing` and not be freed; `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn prf_segment_view(s: *const Segment, out: *mut SegmentView) {
    let s = &*s;
    let st = |i: usize| s.status.get(i).copied().unwrap_or(0);
    *out = SegmentView {
        reason: st(0),
        line: st(1),
        rows: st(2),
        queries: st(3),
        docs: st(4),
        repeated_rows: st(5),
        end: st(6),
        first_row: st(7),
        done: st(S_DONE),
        scores: ArrayView::of(&s.scores),
        run_doc: ArrayView::of(&s.run_doc),
        run_grade: ArrayView::of(&s.run_grade),
        repeated: ArrayView::of(&s.repeated),
        run_start: ArrayView::of(&s.run_start),
        judged: ArrayView::of(&s.judged),
        q_off: ArrayView::of(&s.q_off),
        q_arena: ArrayView::of(&s.q_arena),
        d_off: ArrayView::of(&s.d_off),
        d_arena: ArrayView::of(&s.d_arena),
        j_start: ArrayView::of(&s.j_start),
        j_doc: ArrayView::of(&s.j_doc),
        j_grade: ArrayView::of(&s.j_grade),
        order: ArrayView::of(&s.order),
        row_line: ArrayView::of(&s.row_line),
    };
}

unsafe fn join_input<'a>(a: &join::JoinRows) -> join::Input<'a> {
    join::Input {
        ids: std::slice::from_raw_parts(nonnull(a.ids), a.n_rows * a.n_cols),
        n_cols: a.n_cols,
        row_slot: std::slice::from_raw_parts(nonnull(a.row_slot), a.n_rows),
        gold_offsets: std::slice::from_raw_parts(nonnull(a.gold_offsets), a.n_rows + 1),
        gold_docs: std::slice::from_raw_parts(nonnull(a.gold_docs), *a.gold_offsets.add(a.n_rows) as usize),
        gold_grades: std::slice::from_raw_parts(nonnull(a.gold_grades), *a.gold_offsets.add(a.n_rows) as usize),
    }
}

fn nonnull<T>(p: *const T) -> *const T {
    if p.is_null() { std::ptr::NonNull::dangling().as_ptr() } else { p }
}

/// Join a run array's cells to their judgments into `args`' outputs (see `join.rs`): the
/// number of cells written, or -1 (a panic, outputs shorter than the cells, a code beyond
/// int32 when `code_bytes` is 4, or a `code_bytes` other than 4 and 8).
///
/// # Safety
/// `args` must be valid: input arrays of the lengths `JoinRows` gives, outputs writable for
/// `capacity` entries of their width (`out_counts` for `n_rows`).
#[no_mangle]
pub unsafe extern "C" fn prf_join_rows(args: *const join::JoinRows) -> i64 {
    guarded(|| -1, || {
        let a = &*args;
        match a.code_bytes {
            4 => join_into::<i32>(a),
            8 => join_into::<i64>(a),
            _ => -1,
        }
    })
}

unsafe fn join_into<C: join::Code>(a: &join::JoinRows) -> i64 {
    let cap = a.capacity;
    let codes = |p: *mut std::ffi::c_void| std::slice::from_raw_parts_mut(nonnull(p as *const C) as *mut C, cap);
    let out = join::Output {
        slot: codes(a.out_slot),
        doc: codes(a.out_doc),
        grade: std::slice::from_raw_parts_mut(nonnull(a.out_grade) as *mut i64, cap),
        repeated: std::slice::from_raw_parts_mut(nonnull(a.out_repeated) as *mut u8, cap),
        counts: std::slice::from_raw_parts_mut(nonnull(a.out_counts) as *mut i64, a.n_rows),
    };
    join::join(&join_input(a), a.n_rows, a.threads, out).map_or(-1, |n| n as i64)
}

/// Encode a run given as lists and join it to its judgments into `args`' outputs (see
/// `lists.rs`): 0 (done, or a refusal in `status`), or -1 (a panic, bad arguments, outputs
/// too small).
///
/// # Safety
/// `args` must be valid: the chunks' and judgments' buffers as `EncodeLists` describes them,
/// outputs writable for the room it gives.
#[no_mangle]
pub unsafe extern "C" fn prf_encode_lists(args: *mut lists::EncodeLists) -> i64 {
    guarded(|| -1, || lists::encode_c(&mut *args))
}

/// Read a JSON Lines run of lists (see `jsonl_lists`): 0, or -1 (bad arguments, a panic).
///
/// # Safety
/// `args` must be valid: `data` holds `len` bytes, the keys as `JsonlLists` describes them,
/// outputs writable for the room it gives.
#[no_mangle]
pub unsafe extern "C" fn prf_jsonl_lists(args: *mut jsonl_lists::JsonlLists) -> i64 {
    guarded(|| -1, || jsonl_lists::read_c(&mut *args))
}

/// Free a segment.
///
/// # Safety
/// `s` must come from `prf_next` or `prf_missing`, once.
#[no_mangle]
pub unsafe extern "C" fn prf_free_segment(s: *mut Segment) {
    if !s.is_null() {
        drop(Box::from_raw(s));
    }
}

/// Free a run.
///
/// # Safety
/// `r` must come from `prf_run`, once, and not be in use on another thread.
#[no_mangle]
pub unsafe extern "C" fn prf_free_run(r: *mut RunPass) {
    if !r.is_null() {
        drop(Box::from_raw(r));
    }
}

/// Free judgments.
///
/// # Safety
/// `j` must come from `prf_judge`, once, after every run read against them is freed.
#[no_mangle]
pub unsafe extern "C" fn prf_free_judged(j: *mut Judged) {
    if !j.is_null() {
        drop(Box::from_raw(j));
    }
}

#[cfg(test)]
mod tests;
