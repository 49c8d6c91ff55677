//! Prototype (issue 26): one compiled pass over a TREC run's bytes, as a dependency-free
//! cdylib loaded with ctypes (crates.io, hence pyo3, is not reachable here).
//!
//! The same work as `bench/prototypes/numba_pass.py`: parse the qrels and the run from
//! their bytes, give query and doc ids codes with open-addressing tables keyed by the ids'
//! bytes, join each run line with its judgment (the judgments of the current query
//! scattered into an array indexed by doc code), and put each query's lines in trec_eval's
//! rank order (score descending, ties by doc id descending in byte order).
//!
//! Parsing runs on `threads` threads per 16 MiB block (cut at line ends); coding and the join
//! on one; the rank order on `threads` threads, over disjoint ranges of queries.

use std::cmp::Ordering;
use std::os::raw::c_int;

const BLOCK: usize = 16 << 20;
const UNJUDGED: i64 = i64::MIN;
const EMPTY: u32 = u32::MAX;

extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: c_int) -> c_int;
}
const MADV_DONTNEED: c_int = 4;
const PAGE: usize = 4096;

#[inline]
fn is_space(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r'
}

#[inline]
fn hash(bytes: &[u8]) -> u64 {
    // FNV-1a with a multiply-xorshift finaliser for the low bits.
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58476d1ce4e5b9);
    h ^ (h >> 32)
}

/// One parsed line: where its two ids are, their hashes, its number.
#[derive(Clone, Copy)]
struct Row {
    q: (usize, u32),
    d: (usize, u32),
    hq: u64,
    hd: u64,
    num: f64,
}

/// A line the pass cannot read: 1-based line number and what is wrong.
struct Bad {
    line: u64,
    kind: i64, // 1: wrong field count (fields in `fields`), 2: not a number
    fields: i64,
}

fn parse_chunk(
    buf: &[u8],
    s: usize,
    e: usize,
    n_fields: usize,
    num_field: usize,
    line0: u64,
    mut rows: Vec<Row>,
) -> (Vec<Row>, Option<Bad>) {
    rows.clear();
    let mut bad = None;
    let mut i = s;
    let mut line = line0;
    while i < e {
        line += 1;
        let j = match buf[i..e].iter().position(|&c| c == b'\n') {
            Some(p) => i + p,
            None => e,
        };
        let mut k = i;
        while k < j && is_space(buf[k]) {
            k += 1;
        }
        if k == j || buf[i] == b'#' {
            i = j + 1;
            continue;
        }
        let mut row = Row { q: (0, 0), d: (0, 0), hq: 0, hd: 0, num: 0.0 };
        let mut field = 0;
        while k < j {
            let f0 = k;
            while k < j && !is_space(buf[k]) {
                k += 1;
            }
            let tok = &buf[f0..k];
            if field == 0 {
                row.q = (f0, tok.len() as u32);
                row.hq = hash(tok);
            } else if field == 2 {
                row.d = (f0, tok.len() as u32);
                row.hd = hash(tok);
            } else if field == num_field {
                match std::str::from_utf8(tok).ok().and_then(|t| t.parse::<f64>().ok()) {
                    Some(v) => row.num = v,
                    None => {
                        if bad.is_none() {
                            bad = Some(Bad { line, kind: 2, fields: field as i64 });
                        }
                    }
                }
            }
            field += 1;
            while k < j && is_space(buf[k]) {
                k += 1;
            }
        }
        if field != n_fields && bad.is_none() {
            bad = Some(Bad { line, kind: 1, fields: field as i64 });
        }
        rows.push(row);
        i = j + 1;
    }
    (rows, bad)
}

/// One slot of a table: the key inline when it has at most `INLINE` bytes (one cache miss a
/// lookup), its hash, its code.
#[derive(Clone, Copy)]
#[repr(C)]
struct Slot {
    key: [u8; INLINE],
    hash: u64,
    code: u32,
    len: u32,
}
const INLINE: usize = 16;
const FREE: Slot = Slot { key: [0; INLINE], hash: 0, code: EMPTY, len: 0 };

/// Ids to codes: open addressing, linear probing; every key's bytes also in an arena (in
/// code order), where keys longer than `INLINE` bytes are compared.
struct Table {
    slots: Vec<Slot>,
    n: usize,
    off: Vec<usize>,
    arena: Vec<u8>,
}

impl Table {
    fn new(cap: usize) -> Table {
        Table { slots: vec![FREE; cap], n: 0, off: vec![0], arena: Vec::new() }
    }
    fn len(&self) -> usize {
        self.n
    }
    fn key(&self, c: usize) -> &[u8] {
        &self.arena[self.off[c]..self.off[c + 1]]
    }
    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let mask = cap - 1;
        let mut slots = vec![FREE; cap];
        for s in self.slots.iter().filter(|s| s.code != EMPTY) {
            let mut at = s.hash as usize & mask;
            while slots[at].code != EMPTY {
                at = (at + 1) & mask;
            }
            slots[at] = *s;
        }
        self.slots = slots;
    }
    #[inline]
    fn code(&mut self, key: &[u8], h: u64) -> u32 {
        let mask = self.slots.len() - 1;
        let mut at = h as usize & mask;
        let short = key.len() <= INLINE;
        loop {
            let s = &self.slots[at];
            if s.code == EMPTY {
                break;
            }
            if s.hash == h && s.len as usize == key.len() {
                let same = if short {
                    &s.key[..key.len()] == key
                } else {
                    self.key(s.code as usize) == key
                };
                if same {
                    return s.code;
                }
            }
            at = (at + 1) & mask;
        }
        let c = self.n as u32;
        let mut slot = Slot { key: [0; INLINE], hash: h, code: c, len: key.len() as u32 };
        if short {
            slot.key[..key.len()].copy_from_slice(key);
        }
        self.slots[at] = slot;
        self.n += 1;
        self.arena.extend_from_slice(key);
        self.off.push(self.arena.len());
        if 2 * self.n > self.slots.len() {
            self.grow();
        }
        c
    }
}

/// A pointer written at disjoint indices by several threads.
struct Shared<T>(*mut T);
unsafe impl<T> Sync for Shared<T> {}
unsafe impl<T> Send for Shared<T> {}

#[inline]
fn partition(h: u64, parts: usize) -> usize {
    // The high bits: the low ones pick the slot within the partition's table.
    ((h >> 40) as usize) % parts
}

/// Parse and code one file, block by block; its per-line codes and numbers.
#[allow(clippy::too_many_arguments)]
fn read(
    buf: &[u8],
    n_fields: usize,
    num_field: usize,
    threads: usize,
    queries: &mut Table,
    docs: &mut [Table],
    q_out: &mut Vec<u32>,
    d_out: &mut Vec<u32>,
    v_out: &mut Vec<f64>,
) -> Result<(), Bad> {
    let mut pos = 0;
    // Reused from block to block: fresh memory costs a page fault (and zeroing) a page.
    let mut bufs: Vec<Vec<Row>> = (0..threads).map(|_| Vec::new()).collect();
    let mut rows: Vec<Row> = Vec::new();
    let mut line0: u64 = 0;
    while pos < buf.len() {
        let mut end = (pos + BLOCK).min(buf.len());
        while end < buf.len() && buf[end - 1] != b'\n' {
            end += 1;
        }
        // Cut the block into one chunk per thread at line ends, with each chunk's first line.
        let mut cuts = vec![pos];
        for p in 1..threads {
            let mut c = (pos + (end - pos) * p / threads).max(*cuts.last().unwrap());
            while c < end && buf[c - 1] != b'\n' {
                c += 1;
            }
            cuts.push(c);
        }
        cuts.push(end);
        let mut firsts = vec![line0];
        for p in 0..threads {
            let nl = buf[cuts[p]..cuts[p + 1]].iter().filter(|&&c| c == b'\n').count() as u64;
            firsts.push(firsts[p] + nl);
        }
        let parts: Vec<(Vec<Row>, Option<Bad>)> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..threads)
                .map(|p| {
                    let (s, e, l0) = (cuts[p], cuts[p + 1], firsts[p]);
                    let mine = std::mem::take(&mut bufs[p]);
                    sc.spawn(move || parse_chunk(buf, s, e, n_fields, num_field, l0, mine))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        rows.clear();
        for (p, (part, bad)) in parts.into_iter().enumerate() {
            if let Some(b) = bad {
                return Err(b);
            }
            rows.extend_from_slice(&part);
            bufs[p] = part;
        }
        if pos == 0 && end < buf.len() {
            // Room for the whole file's lines, from the first block's line length.
            let expect = (rows.len() as f64 * buf.len() as f64 / end as f64 * 1.02) as usize;
            q_out.reserve(expect);
            d_out.reserve(expect);
            v_out.reserve(expect);
        }
        let mut prev: Option<(usize, u32, u32)> = None;
        for r in &rows {
            let qk = &buf[r.q.0..r.q.0 + r.q.1 as usize];
            // Consecutive lines usually share their query: compare with the line above.
            let qc = match prev {
                Some((s, l, c)) if l == r.q.1 && &buf[s..s + l as usize] == qk => c,
                _ => queries.code(qk, r.hq),
            };
            prev = Some((r.q.0, r.q.1, qc));
            q_out.push(qc);
            v_out.push(r.num);
        }
        // Doc ids: partition p of the hash space has its own table on its own thread, and
        // its codes are local * P + p, so no thread waits for another.
        let at = d_out.len();
        d_out.resize(at + rows.len(), 0);
        let np = docs.len();
        let out = Shared(d_out[at..].as_mut_ptr());
        let rows_ref = &rows;
        std::thread::scope(|sc| {
            for (p, table) in docs.iter_mut().enumerate() {
                let out = &out;
                sc.spawn(move || {
                    for (i, r) in rows_ref.iter().enumerate() {
                        if partition(r.hd, np) == p {
                            let c = table.code(&buf[r.d.0..r.d.0 + r.d.1 as usize], r.hd);
                            // Safety: row i is written by the one thread owning its partition.
                            unsafe { *out.0.add(i) = c * np as u32 + p as u32 };
                        }
                    }
                });
            }
        });
        // The block's pages leave the resident set (the mapping stays; the page cache keeps them).
        let a = pos - pos % PAGE;
        unsafe {
            madvise(buf.as_ptr().add(a) as *mut _, end - a, MADV_DONTNEED);
        }
        line0 = firsts[threads];
        pos = end;
    }
    Ok(())
}

/// Everything the pass builds; Python reads its arrays in place through `prf_array`.
pub struct Pass {
    run_q: Vec<u32>,
    run_d: Vec<u32>,
    scores: Vec<f64>,
    found: Vec<u8>,
    grade: Vec<i64>,
    repeated: Vec<u8>,
    qrels_q: Vec<u32>,
    qrels_d: Vec<u32>,
    qrels_g: Vec<i64>,
    order: Vec<u32>,
    qstart: Vec<i64>,
    q_off: Vec<i64>,
    q_arena: Vec<u8>,
    d_off: Vec<i64>,
    d_arena: Vec<u8>,
    /// [grouped, duplicate judgment row or -1, bad file (0 none, 1 qrels, 2 run), bad line,
    /// bad kind, bad fields]
    status: Vec<i64>,
}

fn rank_cmp(scores: &[f64], docs: &[u32], t: &Table, a: u32, b: u32) -> Ordering {
    let (sa, sb) = (scores[a as usize], scores[b as usize]);
    match sb.partial_cmp(&sa) {
        Some(Ordering::Equal) | None => t.key(docs[b as usize] as usize).cmp(t.key(docs[a as usize] as usize)),
        Some(o) => o,
    }
}

fn order_queries(rows: &mut [u32], bounds: &[i64], base: i64, scores: &[f64], docs: &[u32], t: &Table) {
    for w in bounds.windows(2) {
        let seg = &mut rows[(w[0] - base) as usize..(w[1] - base) as usize];
        let presorted = seg.windows(2).all(|p| scores[p[1] as usize] <= scores[p[0] as usize]);
        if !presorted {
            seg.sort_unstable_by(|&a, &b| rank_cmp(scores, docs, t, a, b));
            continue;
        }
        // Only tie groups move: sort each by doc id descending.
        let mut g = 0;
        while g < seg.len() {
            let mut e = g + 1;
            while e < seg.len() && scores[seg[e] as usize] == scores[seg[g] as usize] {
                e += 1;
            }
            if e - g > 1 {
                seg[g..e].sort_unstable_by(|&a, &b| {
                    t.key(docs[b as usize] as usize).cmp(t.key(docs[a as usize] as usize))
                });
            }
            g = e;
        }
    }
}

fn build(qrels: &[u8], run: &[u8], threads: usize) -> Box<Pass> {
    let threads = threads.max(1);
    let t0 = std::time::Instant::now();
    let verbose = std::env::var_os("PRF_PASS_TIMES").is_some();
    let lap = |what: &str| {
        if verbose {
            eprintln!("{what}: {:.3} s", t0.elapsed().as_secs_f64());
        }
    };
    let mut queries = Table::new(1 << 14);
    let mut docs: Vec<Table> = (0..threads).map(|_| Table::new(1 << 19)).collect();
    let (mut qq, mut qd, mut qg) = (Vec::new(), Vec::new(), Vec::new());
    let mut status = vec![1, -1, 0, 0, 0, 0];
    let fail = |file: i64, b: Bad, status: &mut Vec<i64>| {
        status[2] = file;
        status[3] = b.line as i64;
        status[4] = b.kind;
        status[5] = b.fields;
    };
    if let Err(b) = read(qrels, 4, 3, threads, &mut queries, &mut docs, &mut qq, &mut qd, &mut qg) {
        fail(1, b, &mut status);
    }
    let (mut rq, mut rd, mut scores) = (Vec::new(), Vec::new(), Vec::new());
    if status[2] == 0 {
        if let Err(b) = read(run, 6, 4, threads, &mut queries, &mut docs, &mut rq, &mut rd, &mut scores) {
            fail(2, b, &mut status);
        }
    }
    lap("read");
    let qrels_g: Vec<i64> = qg.iter().map(|&g| g as i64).collect();
    let np = docs.len();
    let n_d = np * docs.iter().map(|t| t.len()).max().unwrap_or(0);
    let n_q = queries.len();
    let n = rq.len();
    // The doc ids by global code (local * np + p; codes a short partition lacks stay empty).
    let mut d_off = vec![0usize; n_d + 1];
    let mut d_arena = Vec::new();
    for g in 0..n_d {
        let (p, l) = (g % np, g / np);
        if l < docs[p].len() {
            d_arena.extend_from_slice(docs[p].key(l));
        }
        d_off[g + 1] = d_arena.len();
    }
    drop(docs);
    let docs = Table { slots: Vec::new(), n: n_d, off: d_off, arena: d_arena };

    // Judgments by query (CSR), then the join: each block of a query's lines scatters its
    // judgments into `grade_of` (by doc code, stamped with the block number).
    let mut jstart = vec![0usize; n_q + 1];
    for &q in &qq {
        jstart[q as usize + 1] += 1;
    }
    for q in 0..n_q {
        jstart[q + 1] += jstart[q];
    }
    let mut jrow = vec![0u32; qq.len()];
    let mut fill = jstart.clone();
    for (i, &q) in qq.iter().enumerate() {
        jrow[fill[q as usize]] = i as u32;
        fill[q as usize] += 1;
    }
    let mut found = vec![0u8; n];
    let mut grade = vec![UNJUDGED; n];
    let mut repeated = vec![0u8; n];
    let mut block_seen = vec![false; n_q];
    for r in 0..n {
        if r == 0 || rq[r] != rq[r - 1] {
            if block_seen[rq[r] as usize] {
                status[0] = 0; // a query in more than one block: repeats are not all found
            }
            block_seen[rq[r] as usize] = true;
        }
    }
    // Each thread joins the rows whose doc is in its partition (docs of partition p have
    // codes = p mod np), with one record per doc (one cache miss a line): judged in block
    // `stamp` with `grade`; last seen in block `seen`, first at row `first_row`.
    #[derive(Clone, Copy)]
    struct Doc {
        stamp: u32,
        seen: u32,
        first_row: u32,
        grade: i64,
    }
    let (fo, go, ro) = (Shared(found.as_mut_ptr()), Shared(grade.as_mut_ptr()), Shared(repeated.as_mut_ptr()));
    let dups: Vec<i64> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..np)
            .map(|p| {
                let (fo, go, ro) = (&fo, &go, &ro);
                let (rq, rd, qd, qrels_g, jrow, jstart) = (&rq, &rd, &qd, &qrels_g, &jrow, &jstart);
                sc.spawn(move || {
                    let local = n_d / np;
                    let mut per_doc =
                        vec![Doc { stamp: u32::MAX, seen: u32::MAX, first_row: 0, grade: 0 }; local];
                    let mut dup = -1i64;
                    let mut block: u32 = u32::MAX;
                    for r in 0..n {
                        let q = rq[r] as usize;
                        if r == 0 || rq[r] != rq[r - 1] {
                            block = block.wrapping_add(1);
                            for &i in &jrow[jstart[q]..jstart[q + 1]] {
                                let d = qd[i as usize] as usize;
                                if d % np != p {
                                    continue;
                                }
                                let rec = &mut per_doc[d / np];
                                if rec.stamp == block && dup < 0 {
                                    dup = i as i64;
                                }
                                rec.stamp = block;
                                rec.grade = qrels_g[i as usize];
                            }
                        }
                        let d = rd[r] as usize;
                        if d % np != p {
                            continue;
                        }
                        let rec = &mut per_doc[d / np];
                        // Safety: rows (and first rows) of partition p are written by thread p only.
                        unsafe {
                            if rec.stamp == block {
                                *fo.0.add(r) = 1;
                                *go.0.add(r) = rec.grade;
                            }
                            if rec.seen == block {
                                *ro.0.add(r) = 1;
                                *ro.0.add(rec.first_row as usize) = 1;
                            } else {
                                rec.seen = block;
                                rec.first_row = r as u32;
                            }
                        }
                    }
                    dup
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    if let Some(&d) = dups.iter().filter(|&&d| d >= 0).min() {
        status[1] = d;
    }
    lap("join");

    // Rank order: rows grouped by query code, then each query sorted, on `threads` threads.
    let mut qstart = vec![0i64; n_q + 1];
    for &q in &rq {
        qstart[q as usize + 1] += 1;
    }
    for q in 0..n_q {
        qstart[q + 1] += qstart[q];
    }
    let mut order = vec![0u32; n];
    let mut fill: Vec<i64> = qstart[..n_q].to_vec();
    for (r, &q) in rq.iter().enumerate() {
        order[fill[q as usize] as usize] = r as u32;
        fill[q as usize] += 1;
    }
    {
        let mut rest: &mut [u32] = &mut order;
        let mut qlo = 0;
        let (sc, dc, t) = (&scores, &rd, &docs);
        std::thread::scope(|s| {
            for p in 0..threads {
                let qhi = if p + 1 == threads { n_q } else { n_q * (p + 1) / threads };
                let len = (qstart[qhi] - qstart[qlo]) as usize;
                let (mine, tail) = std::mem::take(&mut rest).split_at_mut(len);
                rest = tail;
                let bounds = &qstart[qlo..=qhi];
                let base = qstart[qlo];
                s.spawn(move || order_queries(mine, bounds, base, sc, dc, t));
                qlo = qhi;
            }
        });
    }
    lap("order");
    let to_i64 = |v: &Vec<usize>| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    Box::new(Pass {
        run_q: rq,
        run_d: rd,
        scores,
        found,
        grade,
        repeated,
        qrels_q: qq,
        qrels_d: qd,
        qrels_g,
        order,
        qstart,
        q_off: to_i64(&queries.off),
        q_arena: std::mem::take(&mut queries.arena),
        d_off: to_i64(&docs.off),
        d_arena: docs.arena,
        status,
    })
}

/// Run the pass over `qrels[..qrels_len]` and `run[..run_len]`; free with `prf_free`.
///
/// # Safety
/// Both pointers must be valid for their lengths for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn prf_pass(
    qrels: *const u8,
    qrels_len: usize,
    run: *const u8,
    run_len: usize,
    threads: usize,
) -> *mut Pass {
    let q: &[u8] = if qrels_len == 0 { &[] } else { std::slice::from_raw_parts(qrels, qrels_len) };
    let r: &[u8] = if run_len == 0 { &[] } else { std::slice::from_raw_parts(run, run_len) };
    Box::into_raw(build(q, r, threads))
}

/// Array `which` of the pass: its address and element count (0 run_q u32, 1 run_d u32,
/// 2 scores f64, 3 found u8, 4 grade i64, 5 repeated u8, 6 qrels_q u32, 7 qrels_d u32,
/// 8 qrels_g i64, 9 order u32, 10 qstart i64, 11 q_off i64, 12 q_arena u8, 13 d_off i64,
/// 14 d_arena u8, 15 status i64).
///
/// # Safety
/// `p` must come from `prf_pass` and not be freed; `len` must be writable.
#[no_mangle]
pub unsafe extern "C" fn prf_array(p: *const Pass, which: c_int, len: *mut usize) -> *const u8 {
    let p = &*p;
    macro_rules! out {
        ($v:expr) => {{
            *len = $v.len();
            $v.as_ptr() as *const u8
        }};
    }
    match which {
        0 => out!(p.run_q),
        1 => out!(p.run_d),
        2 => out!(p.scores),
        3 => out!(p.found),
        4 => out!(p.grade),
        5 => out!(p.repeated),
        6 => out!(p.qrels_q),
        7 => out!(p.qrels_d),
        8 => out!(p.qrels_g),
        9 => out!(p.order),
        10 => out!(p.qstart),
        11 => out!(p.q_off),
        12 => out!(p.q_arena),
        13 => out!(p.d_off),
        14 => out!(p.d_arena),
        15 => out!(p.status),
        _ => {
            *len = 0;
            std::ptr::null()
        }
    }
}

/// Free a pass.
///
/// # Safety
/// `p` must come from `prf_pass`, once.
#[no_mangle]
pub unsafe extern "C" fn prf_free(p: *mut Pass) {
    if !p.is_null() {
        drop(Box::from_raw(p));
    }
}
