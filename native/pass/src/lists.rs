//! The encode and join of a run given as lists (`prf_encode_lists`): one row per query, its
//! ranked doc ids as a list, as a JSON Lines or Parquet run of RAG questions holds them.
//!
//! Inputs are Arrow's buffers, read in place: per chunk of rows, the query ids (string
//! offsets, 4 or 8 bytes wide, and their bytes), the list offsets (4 or 8 bytes) into the
//! doc ids (string offsets and bytes); and the judgments as three parallel columns (query
//! id, doc id, grade). The outputs are what the aligner reads (`EncodedBlock`):
//!
//! * per item (the lists' ids, row after row): its query's code, its doc's code, its grade
//!   (`UNJUDGED` when its query's judgments do not hold it) and whether its (query, doc)
//!   appears more than once in the run (both places marked);
//! * the query vocabulary (codes in order of first appearance: the run's rows, then the
//!   judgments), with whether each query is judged and whether the run names it;
//! * the doc vocabulary, sorted by bytes, so that doc codes follow the ids' byte order (ties
//!   are broken by code, as by id);
//! * the judgments by query code, each query's sorted by doc code, a (query, doc) judged
//!   more than once kept once by the policy (`max`: the highest grade; `last`: the last in
//!   the file), with each query's count of repeats dropped.
//!
//! It refuses (a status, nothing else changed) a judgment repeated under the policy `error`
//! and a query of more items than `max_items`: the caller's other reader then names them.
//! Strings are interned in one open-addressing table; the per-item join (a binary search in
//! the query's judgments) and the repeats (a small table per query) run on every core.

use crate::join::{Seen, UNJUDGED};
use std::ffi::c_void;

/// Arrow strings: `len` strings, string `i` is `data[offsets[i]..offsets[i + 1]]`, the
/// offsets `width` (4 or 8) bytes each and already at the array's first string.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Strings {
    pub offsets: *const c_void,
    pub width: usize,
    pub data: *const u8,
    pub len: usize,
}

/// One chunk of a list run: `queries.len` rows, row `r`'s items are the doc ids
/// `lists[r]..lists[r + 1]` of `docs` (list offsets `list_width` bytes each).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ListChunk {
    pub queries: Strings,
    pub lists: *const c_void,
    pub list_width: usize,
    pub docs: Strings,
}

/// The inputs and outputs of `prf_encode_lists`, by name (see `prfeval._io.native_lists`).
#[repr(C)]
pub struct EncodeLists {
    pub chunks: *const ListChunk,
    pub n_chunks: usize,
    pub gold_queries: Strings,
    pub gold_docs: Strings,
    pub gold_grades: *const i64,
    /// 0: a repeated judgment is refused; 1: the highest grade; 2: the last in the file.
    pub duplicates: i64,
    pub max_items: u64,
    pub threads: usize,
    /// The items' scores (null: none), compared in single precision when `single` is 1
    /// (trec_eval 9 keeps them as C floats); with them, `out_rank_rows` gets each query's
    /// items in rank order (score descending, ties by doc id descending), when every
    /// query's items are one run of items (else `ranked` stays 0).
    pub scores: *const f64,
    pub single: u8,
    pub out_rank_rows: *mut i64,
    /// Outputs of `items` entries (the run's items, every chunk's, in order).
    pub items: usize,
    pub out_query: *mut i64,
    pub out_doc: *mut i64,
    pub out_grade: *mut i64,
    pub out_repeated: *mut u8,
    /// Query outputs, room for `query_room` queries and `query_bytes` bytes of ids:
    /// offsets (`query_room + 1`), bytes, flags (1: judged, 2: in the run), repeats dropped.
    pub query_room: usize,
    pub query_bytes: usize,
    pub out_query_offsets: *mut i64,
    pub out_query_data: *mut u8,
    pub out_query_flags: *mut u8,
    pub out_query_repeats: *mut i64,
    /// Doc vocabulary outputs, room for `doc_room` ids and `doc_bytes` bytes.
    pub doc_room: usize,
    pub doc_bytes: usize,
    pub out_doc_offsets: *mut i64,
    pub out_doc_data: *mut u8,
    /// Judgments by query code: offsets (`query_room + 1`), docs and grades (room for all
    /// the judgments).
    pub out_judged_offsets: *mut i64,
    pub out_judged_docs: *mut i64,
    pub out_judged_grades: *mut i64,
    /// Results: 0 (done), `REPEATED` or `TOO_MANY`; the counts written.
    pub status: i64,
    pub n_queries: u64,
    pub n_docs: u64,
    pub n_judged: u64,
    pub ranked: u8,
}

/// A (query, doc) judged twice under the policy `error`.
pub const REPEATED: i64 = 1;
/// A query with more items than `max_items`.
pub const TOO_MANY: i64 = 2;

/// Borrowed strings, read through their offsets.
#[derive(Clone, Copy)]
pub struct View<'a> {
    offsets: Offsets<'a>,
    data: &'a [u8],
}

/// Offsets of either width.
#[derive(Clone, Copy)]
pub enum Offsets<'a> {
    Narrow(&'a [i32]),
    Wide(&'a [i64]),
}

impl<'a> Offsets<'a> {
    /// `n + 1` offsets of `width` bytes at `p` (`None`: a width other than 4 and 8).
    unsafe fn new(p: *const c_void, width: usize, n: usize) -> Option<Offsets<'a>> {
        match width {
            4 => Some(Offsets::Narrow(std::slice::from_raw_parts(p as *const i32, n + 1))),
            8 => Some(Offsets::Wide(std::slice::from_raw_parts(p as *const i64, n + 1))),
            _ => None,
        }
    }

    #[inline(always)]
    fn at(&self, i: usize) -> usize {
        match self {
            Offsets::Narrow(o) => o[i] as usize,
            Offsets::Wide(o) => o[i] as usize,
        }
    }

    fn len(&self) -> usize {
        match self {
            Offsets::Narrow(o) => o.len() - 1,
            Offsets::Wide(o) => o.len() - 1,
        }
    }
}

impl<'a> View<'a> {
    /// Strings from slices (for tests and the C boundary alike).
    pub fn new(offsets: Offsets<'a>, data: &'a [u8]) -> View<'a> {
        View { offsets, data }
    }

    unsafe fn from_c(s: &Strings) -> Option<View<'a>> {
        let offsets = Offsets::new(s.offsets, s.width, s.len)?;
        let end = if s.len == 0 { 0 } else { offsets.at(s.len) };
        let data = if end == 0 { &[][..] } else { std::slice::from_raw_parts(s.data, end) };
        Some(View::new(offsets, data))
    }

    #[inline(always)]
    fn get(&self, i: usize) -> &'a [u8] {
        &self.data[self.offsets.at(i)..self.offsets.at(i + 1)]
    }

    fn len(&self) -> usize {
        self.offsets.len()
    }
}

/// One chunk's rows, as views.
#[derive(Clone, Copy)]
pub struct Chunk<'a> {
    pub queries: View<'a>,
    pub lists: Offsets<'a>,
    pub docs: View<'a>,
}

/// Strings to codes in order of first appearance (open addressing, linear probing). A slot
/// holds the string's hash, length and first 8 bytes, so that finding an id of at most 8
/// bytes touches the slot alone (one cache miss, not three).
struct Interner<'a> {
    slots: Vec<Slot>,
    strings: Vec<&'a [u8]>,
    mask: usize,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u64,
    prefix: u64,
    code: u32, // code + 1, 0: empty
    len: u32,
}

#[inline(always)]
fn prefix(s: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = s.len().min(8);
    w[..n].copy_from_slice(&s[..n]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn hash(s: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (s.len() as u64).wrapping_mul(K);
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h.rotate_left(5) ^ prefix(rest)).wrapping_mul(K);
    }
    // murmur3's finaliser: every input bit reaches the low bits the table indexes.
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

impl<'a> Interner<'a> {
    fn new(expected: usize) -> Interner<'a> {
        let cap = (2 * expected).next_power_of_two().max(64);
        Interner { slots: vec![Slot::default(); cap], strings: Vec::new(), mask: cap - 1 }
    }

    #[inline(always)]
    fn code(&mut self, s: &'a [u8]) -> usize {
        self.code_hashed(s, hash(s))
    }

    #[inline(always)]
    fn code_hashed(&mut self, s: &'a [u8], h: u64) -> usize {
        let p = prefix(s);
        let mut at = h as usize & self.mask;
        loop {
            let slot = self.slots[at];
            if slot.code == 0 {
                let code = self.strings.len();
                self.slots[at] = Slot { hash: h, prefix: p, code: code as u32 + 1, len: s.len() as u32 };
                self.strings.push(s);
                if 2 * self.strings.len() > self.slots.len() {
                    self.grow();
                }
                return code;
            }
            if slot.hash == h && slot.prefix == p && slot.len as usize == s.len()
                && (s.len() <= 8 || self.strings[slot.code as usize - 1] == s)
            {
                return slot.code as usize - 1;
            }
            at = (at + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); cap]);
        self.mask = cap - 1;
        for slot in old.into_iter().filter(|s| s.code != 0) {
            let mut at = slot.hash as usize & self.mask;
            while self.slots[at].code != 0 {
                at = (at + 1) & self.mask;
            }
            self.slots[at] = slot;
        }
    }
}

/// Doc codes in byte order straight from a sort of integers, when the ids allow it (as
/// `prfeval._core.codes.byte_order_keys` does): past the bytes every id shares at its
/// start, no id has more than 8 bytes left, and none holds a NUL. The rest of each id,
/// zero-padded and read big-endian, is then an integer that orders and tells the ids apart:
/// (key, place) pairs are radix sorted and the codes counted off. `None` otherwise. Codes
/// are written to `out` (items) and returned (judgments), with the distinct ids in order.
fn short_ids<'a>(chunks: &[Chunk<'a>], gold: View<'a>, out: &mut [i64]) -> Option<(Vec<&'a [u8]>, Vec<u64>)> {
    let n_items = out.len();
    let mut first: Option<&[u8]> = None;
    let mut shared = usize::MAX;
    let mut each = |id: &'a [u8]| -> bool {
        if id.contains(&0) {
            return false;
        }
        let f = *first.get_or_insert(id);
        if shared > 0 {
            let common = f.iter().zip(id).take_while(|(a, b)| a == b).count();
            shared = shared.min(common);
        }
        true
    };
    for c in chunks {
        for i in c.lists.at(0)..c.lists.at(c.queries.len()) {
            if !each(c.docs.get(i)) {
                return None;
            }
        }
    }
    for i in 0..gold.len() {
        if !each(gold.get(i)) {
            return None;
        }
    }
    let shared = if first.is_none() { 0 } else { shared };
    let key = |id: &[u8]| -> Option<u64> {
        let rest = &id[shared.min(id.len())..];
        (rest.len() <= 8).then(|| u64::from_be_bytes(prefix(rest).to_le_bytes()))
    };
    let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(n_items + gold.len());
    let mut starts = Vec::with_capacity(chunks.len()); // each chunk's first place
    for c in chunks {
        starts.push(pairs.len());
        for i in c.lists.at(0)..c.lists.at(c.queries.len()) {
            pairs.push((key(c.docs.get(i))?, pairs.len() as u32));
        }
    }
    for i in 0..gold.len() {
        pairs.push((key(gold.get(i))?, pairs.len() as u32));
    }
    // The id at a place: an item of its chunk, or a judgment.
    let id_at = |at: usize| -> &'a [u8] {
        if at >= n_items {
            return gold.get(at - n_items);
        }
        let c = starts.partition_point(|&s| s <= at) - 1;
        chunks[c].docs.get(chunks[c].lists.at(0) + at - starts[c])
    };
    radix_sort(&mut pairs);
    let mut strings = Vec::new();
    let mut gold_codes = vec![0u64; gold.len()];
    let mut last = None;
    for &(k, at) in &pairs {
        if last != Some(k) {
            strings.push(id_at(at as usize));
            last = Some(k);
        }
        let code = strings.len() as u64 - 1;
        let at = at as usize;
        if at < n_items { out[at] = code as i64 } else { gold_codes[at - n_items] = code }
    }
    Some((strings, gold_codes))
}

/// Sort (key, place) pairs by key (LSD radix, 16 bits a pass, passes where every key has
/// the same digit skipped), stably.
fn radix_sort(pairs: &mut Vec<(u64, u32)>) {
    let mut other = vec![(0u64, 0u32); pairs.len()];
    for pass in 0..4 {
        let shift = 16 * pass;
        let mut counts = vec![0usize; 1 << 16];
        for &(k, _) in pairs.iter() {
            counts[((k >> shift) & 0xFFFF) as usize] += 1;
        }
        if counts.iter().any(|&c| c == pairs.len()) {
            continue;
        }
        let mut at = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for &p in pairs.iter() {
            let d = ((p.0 >> shift) & 0xFFFF) as usize;
            other[counts[d]] = p;
            counts[d] += 1;
        }
        std::mem::swap(pairs, &mut other);
    }
}

/// Intern every item's doc id (its code written to `out`, as `(thread << 32) | code`) and
/// the judgments' (their codes returned), the ids shared among `threads` by hash: the
/// distinct ids, thread after thread, and where each thread's begin among them.
fn intern_docs<'a>(chunks: &[Chunk<'a>], gold: View<'a>, out: &mut [i64], threads: usize)
    -> (Vec<&'a [u8]>, Vec<usize>, Vec<u64>) {
    let threads = threads.clamp(1, 16);
    let n_items = out.len();
    let mut gold_codes = vec![0u64; gold.len()];
    let (po, pg) = (out.as_mut_ptr() as usize, gold_codes.as_mut_ptr() as usize);
    let tables: Vec<Vec<&'a [u8]>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || {
            let mut table = Interner::new(n_items / (8 * threads) + gold.len() / threads);
            let mine = |h: u64| (h >> 59) as usize % threads == t;
            let mut at = 0usize;
            for c in chunks {
                for i in c.lists.at(0)..c.lists.at(c.queries.len()) {
                    let id = c.docs.get(i);
                    let h = hash(id);
                    if mine(h) {
                        let code = table.code_hashed(id, h) as u64 | (t as u64) << 32;
                        // SAFETY: item `at` is this thread's alone (by its hash), in bounds.
                        unsafe { *(po as *mut i64).add(at) = code as i64 };
                    }
                    at += 1;
                }
            }
            for i in 0..gold.len() {
                let id = gold.get(i);
                let h = hash(id);
                if mine(h) {
                    let code = table.code_hashed(id, h) as u64 | (t as u64) << 32;
                    // SAFETY: as above, for judgment `i`.
                    unsafe { *(pg as *mut u64).add(i) = code };
                }
            }
            table.strings
        })).collect();
        handles.into_iter().map(|h| h.join().expect("an interning thread failed")).collect()
    });
    let mut base = vec![0usize; threads + 1];
    for t in 0..threads {
        base[t + 1] = base[t] + tables[t].len();
    }
    (tables.concat(), base, gold_codes)
}

/// The codes of `strings` in the strings' byte order: sorted by their first 8 bytes (as a
/// big-endian integer, with the code: one cache line per comparison), then each run of
/// equal first 8 bytes by the whole strings.
fn byte_order(strings: &[&[u8]]) -> Vec<u32> {
    let mut keys: Vec<(u64, u32)> = strings.iter().enumerate()
        .map(|(code, s)| (u64::from_be_bytes(prefix(s).to_le_bytes()), code as u32)).collect();
    keys.sort_unstable();
    let mut i = 0;
    while i < keys.len() {
        let mut j = i + 1;
        while j < keys.len() && keys[j].0 == keys[i].0 {
            j += 1;
        }
        if j - i > 1 {
            keys[i..j].sort_unstable_by(|a, b| strings[a.1 as usize].cmp(strings[b.1 as usize]));
        }
        i = j;
    }
    keys.into_iter().map(|(_, code)| code).collect()
}

/// What `encode` gives besides the per-item outputs.
pub struct Encoded<'a> {
    pub queries: Vec<&'a [u8]>,
    /// Per query code: 1 judged, 2 in the run.
    pub flags: Vec<u8>,
    pub repeats: Vec<i64>,
    /// Doc ids in byte order (code = place).
    pub docs: Vec<&'a [u8]>,
    pub judged_offsets: Vec<i64>,
    pub judged_docs: Vec<i64>,
    pub judged_grades: Vec<i64>,
    /// Whether the items were ranked (`ItemsOut::ranking`).
    pub ranked: bool,
}

/// The per-item outputs (each of the run's item count).
pub struct ItemsOut<'o> {
    pub query: &'o mut [i64],
    pub doc: &'o mut [i64],
    pub grade: &'o mut [i64],
    pub repeated: &'o mut [u8],
    /// With scores (and whether they tie in single precision): the items in rank order.
    pub ranking: Option<(&'o [f64], bool, &'o mut [i64])>,
}

/// Encode and join (see the module's notes): `Err(status)` on a refusal.
pub fn encode<'a>(
    chunks: &[Chunk<'a>], gold_q: View<'a>, gold_d: View<'a>, grades: &[i64], duplicates: i64,
    max_items: u64, threads: usize, out: ItemsOut,
) -> Result<Encoded<'a>, i64> {
    let n_items: usize = chunks.iter().map(|c| c.lists.at(c.queries.len()) - c.lists.at(0)).sum();
    let n_rows: usize = chunks.iter().map(|c| c.queries.len()).sum();
    assert!(out.query.len() >= n_items && out.doc.len() >= n_items);
    assert!(out.grade.len() >= n_items && out.repeated.len() >= n_items);
    assert!(gold_d.len() == gold_q.len() && grades.len() == gold_q.len());
    // Query codes: the run's rows, then the judgments'.
    let mut queries = Interner::new(n_rows + gold_q.len());
    let mut row_query = Vec::with_capacity(n_rows);
    let mut row_items = Vec::with_capacity(n_rows); // (first item, end) in the outputs
    let mut base = 0usize;
    for c in chunks {
        let first = c.lists.at(0);
        for r in 0..c.queries.len() {
            row_query.push(queries.code(c.queries.get(r)) as i64);
            row_items.push((base + c.lists.at(r) - first, base + c.lists.at(r + 1) - first));
        }
        base += c.lists.at(c.queries.len()) - first;
    }
    let gold_query: Vec<usize> = (0..gold_q.len()).map(|i| queries.code(gold_q.get(i))).collect();
    let n_q = queries.strings.len();
    let mut flags = vec![0u8; n_q];
    let mut sizes = vec![0u64; n_q];
    for (r, &q) in row_query.iter().enumerate() {
        flags[q as usize] |= 2;
        sizes[q as usize] += (row_items[r].1 - row_items[r].0) as u64;
    }
    if sizes.iter().any(|&s| s > max_items) {
        return Err(TOO_MANY);
    }
    for &q in &gold_query {
        flags[q] |= 1;
    }
    // Doc codes: the ids are shared among the threads by hash, each interning its own in
    // a table of its own (code `(thread << 32) | its code`), then sorted by bytes together.
    let (strings, base, gold_doc, in_order) = match short_ids(chunks, gold_d, out.doc) {
        Some((strings, gold_doc)) => (strings, vec![0, usize::MAX], gold_doc, true),
        None => {
            let (strings, base, gold_doc) = intern_docs(chunks, gold_d, out.doc, threads);
            (strings, base, gold_doc, false)
        }
    };
    let order: Vec<u32> = if in_order { (0..strings.len() as u32).collect() } else { byte_order(&strings) };
    let mut rank = vec![0i64; order.len()];
    for (place, &code) in order.iter().enumerate() {
        rank[code as usize] = place as i64;
    }
    let global = |c: u64| if in_order { c as i64 } else { rank[base[(c >> 32) as usize] + (c & 0xFFFF_FFFF) as usize] };
    let gold_doc: Vec<i64> = gold_doc.iter().map(|&c| global(c)).collect();
    let docs = Interner { slots: Vec::new(), strings, mask: 0 };
    let sorted_docs: Vec<&[u8]> = order.iter().map(|&c| docs.strings[c as usize]).collect();
    // Judgments by query code (file order within), then each query's by doc code.
    let mut judged_offsets = vec![0i64; n_q + 1];
    for &q in &gold_query {
        judged_offsets[q + 1] += 1;
    }
    for q in 0..n_q {
        judged_offsets[q + 1] += judged_offsets[q];
    }
    let mut fill: Vec<usize> = judged_offsets[..n_q].iter().map(|&o| o as usize).collect();
    let mut by_query = vec![(0i64, 0i64); gold_q.len()]; // (doc code, grade)
    for (i, &q) in gold_query.iter().enumerate() {
        by_query[fill[q]] = (gold_doc[i], grades[i]);
        fill[q] += 1;
    }
    let mut repeats = vec![0i64; n_q];
    let mut judged_docs = Vec::with_capacity(gold_q.len());
    let mut judged_grades = Vec::with_capacity(gold_q.len());
    let mut kept_offsets = vec![0i64; n_q + 1];
    for q in 0..n_q {
        let part = &mut by_query[judged_offsets[q] as usize..judged_offsets[q + 1] as usize];
        part.sort_by_key(|&(d, _)| d); // stable: repeats stay in file order
        let mut i = 0;
        while i < part.len() {
            let mut j = i + 1;
            while j < part.len() && part[j].0 == part[i].0 {
                j += 1;
            }
            if j - i > 1 {
                if duplicates == 0 {
                    return Err(REPEATED);
                }
                repeats[q] += (j - i - 1) as i64;
            }
            let grade = if duplicates == 1 {
                part[i..j].iter().map(|&(_, g)| g).max().unwrap_or(0)
            } else {
                part[j - 1].1
            };
            judged_docs.push(part[i].0);
            judged_grades.push(grade);
            i = j;
        }
        kept_offsets[q + 1] = judged_docs.len() as i64;
    }
    // Each query's rows (most have one), for the repeats within the query.
    let mut query_rows = vec![0usize; n_q + 1];
    for &q in &row_query {
        query_rows[q as usize + 1] += 1;
    }
    for q in 0..n_q {
        query_rows[q + 1] += query_rows[q];
    }
    let mut rows_of = vec![0usize; n_rows];
    let mut place: Vec<usize> = query_rows[..n_q].to_vec();
    for (r, &q) in row_query.iter().enumerate() {
        rows_of[place[q as usize]] = r;
        place[q as usize] += 1;
    }
    let biggest = sizes.iter().copied().max().unwrap_or(0) as usize;
    // Ranked here when each query's rows follow one another (its items one run of items).
    let contiguous = (0..n_q).all(|q| {
        let rows = &rows_of[query_rows[q]..query_rows[q + 1]];
        rows.windows(2).all(|w| w[1] == w[0] + 1)
    });
    let ranking = if contiguous { out.ranking.map(|(sc, single, rr)| (sc, single, rr.as_mut_ptr() as usize)) } else { None };
    // Per item: query code, sorted doc code, grade, repeated; queries shared among threads
    // (their items are scattered, so each thread writes through raw pointers to its own).
    let ptrs = (out.query.as_mut_ptr() as usize, out.doc.as_mut_ptr() as usize,
                out.grade.as_mut_ptr() as usize, out.repeated.as_mut_ptr() as usize);
    let threads = threads.clamp(1, 64).min(n_q.max(1));
    let bounds: Vec<usize> = (0..=threads).map(|t| t * n_q / threads).collect();
    let (row_query, row_items, rows_of) = (&row_query, &row_items, &rows_of);
    let (query_rows, rank, kept_offsets, base) = (&query_rows, &rank, &kept_offsets, &base);
    let (judged_docs_ref, judged_grades_ref) = (&judged_docs, &judged_grades);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (qa, qb) = (bounds[t], bounds[t + 1]);
            s.spawn(move || {
                let (pq, pd, pg, pr) = ptrs;
                let mut seen = Seen::new(biggest);
                let mut keys: Vec<(u64, u32, u32)> = Vec::new();
                for q in qa..qb {
                    let gold = &judged_docs_ref[kept_offsets[q] as usize..kept_offsets[q + 1] as usize];
                    let ga = kept_offsets[q] as usize;
                    seen.begin();
                    for &r in &rows_of[query_rows[q]..query_rows[q + 1]] {
                        let (a, b) = row_items[r];
                        for i in a..b {
                            // SAFETY: item i belongs to row r, of query q, of this thread
                            // alone; the outputs hold every item.
                            unsafe {
                                let c = *(pd as *const i64).add(i) as u64;
                                // Codes from the sort are in byte order already.
                                let d = if in_order { c as i64 } else { rank[base[(c >> 32) as usize] + (c & 0xFFFF_FFFF) as usize] };
                                *(pd as *mut i64).add(i) = d;
                                *(pq as *mut i64).add(i) = row_query[r];
                                *(pg as *mut i64).add(i) = match gold.binary_search(&d) {
                                    Ok(k) => judged_grades_ref[ga + k],
                                    Err(_) => UNJUDGED,
                                };
                                *(pr as *mut u8).add(i) = 0;
                                if let Some(first) = seen.insert(d, i) {
                                    *(pr as *mut u8).add(first) = 1;
                                    *(pr as *mut u8).add(i) = 1;
                                }
                            }
                        }
                    }
                    let rows = &rows_of[query_rows[q]..query_rows[q + 1]];
                    if let (Some((scores, single, pk)), Some(&r0), Some(&r1)) = (ranking, rows.first(), rows.last()) {
                        let (a, b) = (row_items[r0].0, row_items[r1].1);
                        let key = |i: usize| if single { scores[i] as f32 as f64 } else { scores[i] };
                        // SAFETY: items a..b are query q's, this thread's alone.
                        let doc = |i: usize| unsafe { *(pd as *const i64).add(i) };
                        if (a..b).any(|i| key(i).is_nan()) {
                            let mut order: Vec<usize> = (a..b).collect();
                            order.sort_by(|&x, &y| key(y).partial_cmp(&key(x)).unwrap_or(std::cmp::Ordering::Equal)
                                .then(doc(y).cmp(&doc(x))));
                            for (k, &i) in order.iter().enumerate() {
                                // SAFETY: as above.
                                unsafe { *(pk as *mut i64).add(a + k) = i as i64 };
                            }
                        } else {
                            // One key an item, all distinct (the place last), so an unstable
                            // sort gives the stable sort's order, at a fraction of its cost.
                            keys.clear();
                            keys.extend((a..b).map(|i| (descending(key(i)), !(doc(i) as u32), (i - a) as u32)));
                            keys.sort_unstable();
                            for (k, &(_, _, i)) in keys.iter().enumerate() {
                                // SAFETY: as above.
                                unsafe { *(pk as *mut i64).add(a + k) = (a + i as usize) as i64 };
                            }
                        }
                    }
                }
            });
        }
    });
    let ranked = ranking.is_some();
    Ok(Encoded {
        queries: queries.strings,
        flags,
        repeats,
        docs: sorted_docs,
        judged_offsets: kept_offsets.clone(),
        judged_docs,
        judged_grades,
        ranked,
    })
}

/// A key that sorts scores in descending order as integers (0 and -0 alike, as they
/// compare equal); not for NaN.
#[inline(always)]
fn descending(x: f64) -> u64 {
    let bits = if x == 0.0 { 0u64 } else { x.to_bits() };
    let ascending = if bits >> 63 == 1 { !bits } else { bits | 1 << 63 };
    !ascending
}

/// Write strings as offsets (`n + 1`, from 0) and bytes; `false` when they do not fit.
fn write_strings(strings: &[&[u8]], offsets: &mut [i64], data: &mut [u8]) -> bool {
    if offsets.len() < strings.len() + 1 {
        return false;
    }
    let mut at = 0usize;
    offsets[0] = 0;
    for (i, s) in strings.iter().enumerate() {
        if at + s.len() > data.len() {
            return false;
        }
        data[at..at + s.len()].copy_from_slice(s);
        at += s.len();
        offsets[i + 1] = at as i64;
    }
    true
}

unsafe fn out_slice<'o, T>(p: *mut T, n: usize) -> &'o mut [T] {
    if n == 0 {
        &mut []
    } else {
        std::slice::from_raw_parts_mut(p, n)
    }
}

/// `prf_encode_lists`' body: 0 (done, or a refusal in `status`), or -1 (bad arguments,
/// outputs too small).
pub unsafe fn encode_c(a: &mut EncodeLists) -> i64 {
    let raw = if a.n_chunks == 0 { &[][..] } else { std::slice::from_raw_parts(a.chunks, a.n_chunks) };
    let mut chunks = Vec::with_capacity(raw.len());
    for c in raw {
        let (Some(queries), Some(docs)) = (View::from_c(&c.queries), View::from_c(&c.docs)) else {
            return -1;
        };
        let Some(lists) = Offsets::new(c.lists, c.list_width, c.queries.len) else { return -1 };
        if lists.at(c.queries.len) > docs.len() || lists.at(0) > lists.at(c.queries.len) {
            return -1;
        }
        chunks.push(Chunk { queries, lists, docs });
    }
    let (Some(gold_q), Some(gold_d)) = (View::from_c(&a.gold_queries), View::from_c(&a.gold_docs)) else {
        return -1;
    };
    let n_gold = a.gold_queries.len;
    if a.gold_docs.len != n_gold {
        return -1;
    }
    let grades = if n_gold == 0 { &[][..] } else { std::slice::from_raw_parts(a.gold_grades, n_gold) };
    let n = a.items;
    let out = ItemsOut {
        query: out_slice(a.out_query, n),
        doc: out_slice(a.out_doc, n),
        grade: out_slice(a.out_grade, n),
        repeated: out_slice(a.out_repeated, n),
        ranking: if a.scores.is_null() || n == 0 { None } else {
            Some((std::slice::from_raw_parts(a.scores, n), a.single != 0, out_slice(a.out_rank_rows, n)))
        },
    };
    let total: usize = chunks.iter().map(|c| c.lists.at(c.queries.len()) - c.lists.at(0)).sum();
    if total != n || n + n_gold >= u32::MAX as usize {
        return -1; // codes and places are 32-bit: the numpy encoder takes a run that large
    }
    let e = match encode(&chunks, gold_q, gold_d, grades, a.duplicates, a.max_items, a.threads, out) {
        Ok(e) => e,
        Err(status) => {
            a.status = status;
            return 0;
        }
    };
    let nq = e.queries.len();
    if nq > a.query_room || e.judged_docs.len() > n_gold {
        return -1;
    }
    if !write_strings(&e.queries, out_slice(a.out_query_offsets, a.query_room + 1),
                      out_slice(a.out_query_data, a.query_bytes))
        || !write_strings(&e.docs, out_slice(a.out_doc_offsets, a.doc_room + 1),
                          out_slice(a.out_doc_data, a.doc_bytes))
    {
        return -1;
    }
    out_slice(a.out_query_flags, nq).copy_from_slice(&e.flags);
    out_slice(a.out_query_repeats, nq).copy_from_slice(&e.repeats);
    out_slice(a.out_judged_offsets, nq + 1).copy_from_slice(&e.judged_offsets);
    let nj = e.judged_docs.len();
    out_slice(a.out_judged_docs, nj).copy_from_slice(&e.judged_docs);
    out_slice(a.out_judged_grades, nj).copy_from_slice(&e.judged_grades);
    a.status = 0;
    a.n_queries = nq as u64;
    a.n_docs = e.docs.len() as u64;
    a.n_judged = nj as u64;
    a.ranked = e.ranked as u8;
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> (Vec<i64>, Vec<u8>) {
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        for s in items {
            data.extend_from_slice(s.as_bytes());
            offsets.push(data.len() as i64);
        }
        (offsets, data)
    }

    type Row = (i64, String, i64, u8);

    /// (query code, doc id, grade, repeated) per item, and the encoding.
    fn run(rows: &[(&str, &[&str])], gold: &[(&str, &str, i64)], duplicates: i64, threads: usize)
        -> Result<(Vec<Row>, Vec<String>, Vec<u8>, Vec<i64>), i64> {
        let (qo, qd) = strings(&rows.iter().map(|r| r.0).collect::<Vec<_>>());
        let items: Vec<&str> = rows.iter().flat_map(|r| r.1.iter().copied()).collect();
        let (d_o, dd) = strings(&items);
        let mut lists = vec![0i32];
        for r in rows {
            lists.push(lists.last().unwrap() + r.1.len() as i32);
        }
        let (gqo, gqd) = strings(&gold.iter().map(|g| g.0).collect::<Vec<_>>());
        let (gdo, gdd) = strings(&gold.iter().map(|g| g.1).collect::<Vec<_>>());
        let grades: Vec<i64> = gold.iter().map(|g| g.2).collect();
        let chunk = Chunk {
            queries: View::new(Offsets::Wide(&qo), &qd),
            lists: Offsets::Narrow(&lists),
            docs: View::new(Offsets::Wide(&d_o), &dd),
        };
        let n = items.len();
        let (mut q, mut d, mut g, mut rep) = (vec![0; n], vec![0; n], vec![0; n], vec![0u8; n]);
        let e = encode(&[chunk], View::new(Offsets::Wide(&gqo), &gqd), View::new(Offsets::Wide(&gdo), &gdd),
                       &grades, duplicates, 1000, threads,
                       ItemsOut { query: &mut q, doc: &mut d, grade: &mut g, repeated: &mut rep, ranking: None })?;
        let name = |c: i64| String::from_utf8(e.docs[c as usize].to_vec()).unwrap();
        let cells = (0..n).map(|i| (q[i], name(d[i]), g[i], rep[i])).collect();
        let queries = e.queries.iter().map(|s| String::from_utf8(s.to_vec()).unwrap()).collect();
        Ok((cells, queries, e.flags, e.repeats))
    }

    #[test]
    fn items_are_joined_and_repeats_marked() {
        let rows: &[(&str, &[&str])] = &[("q1", &["b", "a", "b"]), ("q2", &[]), ("q3", &["a"])];
        let gold = [("q1", "a", 2), ("q3", "c", 1), ("q4", "a", 1)];
        let (cells, queries, flags, _) = run(rows, &gold, 0, 2).unwrap();
        assert_eq!(queries, ["q1", "q2", "q3", "q4"]);
        assert_eq!(flags, [3, 2, 3, 1]);
        let want: Vec<Row> = vec![(0, "b".into(), UNJUDGED, 1), (0, "a".into(), 2, 0),
                                  (0, "b".into(), UNJUDGED, 1), (2, "a".into(), UNJUDGED, 0)];
        assert_eq!(cells, want);
    }

    #[test]
    fn doc_codes_follow_byte_order() {
        let rows: &[(&str, &[&str])] = &[("q", &["z", "b", "ab", "a"])];
        let (cells, ..) = run(rows, &[("q", "zz", 1)], 0, 1).unwrap();
        let names: Vec<String> = cells.iter().map(|c| c.1.clone()).collect();
        assert_eq!(names, ["z", "b", "ab", "a"]);
    }

    #[test]
    fn byte_order_breaks_long_and_nul_ties_by_the_whole_string() {
        let items = ["abcdefghZ", "abcdefgh", "ab\0", "ab", "abcdefghA", "b", ""];
        let strings: Vec<&[u8]> = items.iter().map(|s| s.as_bytes()).collect();
        let got: Vec<&str> = byte_order(&strings).iter().map(|&c| items[c as usize]).collect();
        let mut want = items.to_vec();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn short_and_long_ids_give_the_same_codes() {
        let short: &[&str] = &["doc9", "doc10", "doc1", "doc10", "d", "doc"];
        let long: Vec<String> = short.iter().map(|s| format!("{s}-and-more-than-eight-bytes")).collect();
        let long: Vec<&str> = long.iter().map(|s| s.as_str()).collect();
        for ids in [short, &long[..], &["a\0b", "a"][..]] {
            let rows: &[(&str, &[&str])] = &[("q", ids)];
            let (cells, ..) = run(rows, &[("q", ids[0], 1)], 0, 2).unwrap();
            let names: Vec<&str> = cells.iter().map(|c| c.1.as_str()).collect();
            assert_eq!(names, ids);
            assert_eq!(cells[0].2, 1);
        }
    }

    #[test]
    fn items_are_ranked_by_score_then_doc_id_descending() {
        let (qo, qd) = strings(&["a", "b"]);
        let (d_o, dd) = strings(&["x", "z", "y", "y", "w"]);
        let lists = [0i32, 3, 5];
        let scores = [1.0, 2.0, 2.0, 0.5, 1.0 + 1e-9];
        let chunk = Chunk { queries: View::new(Offsets::Wide(&qo), &qd), lists: Offsets::Narrow(&lists),
                            docs: View::new(Offsets::Wide(&d_o), &dd) };
        let none = View::new(Offsets::Wide(&[0]), &[]);
        for (single, want) in [(false, [1, 2, 0, 4, 3]), (true, [1, 2, 0, 4, 3])] {
            let (mut q, mut d, mut g, mut r, mut k) = ([0; 5], [0; 5], [0; 5], [0u8; 5], [0i64; 5]);
            let e = encode(&[chunk], none, none, &[], 0, 10, 2, ItemsOut {
                query: &mut q, doc: &mut d, grade: &mut g, repeated: &mut r,
                ranking: Some((&scores, single, &mut k)) }).unwrap();
            assert!(e.ranked);
            assert_eq!(k, want);
        }
        // In single precision 1.0 and 1.0 + 1e-9 tie: the doc id decides (y before w).
        let scores = [1.0, 1.0 + 1e-9, 0.0, 1.0, 1.0 + 1e-9];
        let (mut q, mut d, mut g, mut r, mut k) = ([0; 5], [0; 5], [0; 5], [0u8; 5], [0i64; 5]);
        encode(&[chunk], none, none, &[], 0, 10, 1, ItemsOut {
            query: &mut q, doc: &mut d, grade: &mut g, repeated: &mut r,
            ranking: Some((&scores, true, &mut k)) }).unwrap();
        assert_eq!(k, [1, 0, 2, 3, 4]);
    }

    #[test]
    fn descending_keys_order_as_the_scores_do() {
        let xs = [f64::NEG_INFINITY, -1e300, -2.5, -1e-300, -0.0, 0.0, 1e-300, 3.0, 1e300, f64::INFINITY];
        for w in xs.windows(2) {
            assert!(descending(w[0]) >= descending(w[1]), "{} {}", w[0], w[1]);
            assert_eq!(descending(w[0]) == descending(w[1]), w[0] == w[1]);
        }
    }

    #[test]
    fn a_query_on_two_rows_repeats_across_them() {
        let rows: &[(&str, &[&str])] = &[("q", &["a"]), ("r", &["a"]), ("q", &["a", "b"])];
        let (cells, ..) = run(rows, &[], 0, 3).unwrap();
        let repeated: Vec<u8> = cells.iter().map(|c| c.3).collect();
        assert_eq!(repeated, [1, 0, 1, 0]);
    }

    #[test]
    fn repeated_judgments_by_policy() {
        let rows: &[(&str, &[&str])] = &[("q", &["a"])];
        let gold = [("q", "a", 1), ("q", "a", 3), ("q", "a", 2)];
        assert_eq!(run(rows, &gold, 0, 1).err(), Some(REPEATED));
        let (cells, _, _, repeats) = run(rows, &gold, 1, 1).unwrap();
        assert_eq!((cells[0].2, repeats[0]), (3, 2));
        let (cells, ..) = run(rows, &gold, 2, 1).unwrap();
        assert_eq!(cells[0].2, 2);
    }

    #[test]
    fn a_query_past_the_limit_is_refused() {
        let many: Vec<&str> = vec!["a"; 1001];
        let rows: &[(&str, &[&str])] = &[("q", &many)];
        assert_eq!(run(rows, &[], 0, 1).err(), Some(TOO_MANY));
    }

    #[test]
    fn threads_give_the_same_cells() {
        let docs: Vec<String> = (0..50).map(|i| format!("d{}", i * 7 % 13)).collect();
        let refs: Vec<&str> = docs.iter().map(|s| s.as_str()).collect();
        let names: Vec<String> = (0..20).map(|i| format!("q{i}")).collect();
        let rows: Vec<(&str, &[&str])> = names.iter().enumerate()
            .map(|(i, q)| (q.as_str(), &refs[i..i + 30])).collect();
        let gold = [("q3", "d5", 1), ("q7", "d1", 2)];
        assert_eq!(run(&rows, &gold, 0, 1), run(&rows, &gold, 0, 5));
    }
}
