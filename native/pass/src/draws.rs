//! The Monte Carlo draws of prfeval's paired tests (`prfeval._comparison.stats`): the sign
//! flips of the randomization test and the resamples of the paired bootstrap, drawn from
//! numpy's PCG64 stream and summed here, so that no draw is ever stored.
//!
//! The generator is PCG64 as `numpy.random.PCG64` runs it (O'Neill 2014, "PCG: a family of
//! simple fast space-efficient statistically good algorithms for random number generation"):
//! a 128-bit linear congruential generator `state = state * MULTIPLIER + inc`, whose 64-bit
//! output is taken after the step by XSL-RR: the high and low halves of the state xor-ed and
//! rotated right by the state's top 6 bits. Given numpy's `state` and `inc`, it gives the very
//! numbers `bit_generator.random_raw()` gives, and so the same doubles as
//! `Generator.random()`, `(next >> 11) * 2^-53`:
//!
//! * a sign flip (`uniform < 0.5`) is `next < 2^63`;
//! * a bootstrap pick (`floor(n * uniform)`, at most `n - 1`) is
//!   `min(trunc(((next >> 11) * 2^-53) * n), n - 1)`, in doubles, as numpy computes it.
//!
//! Draws are taken row by row: permutation (resample) `b` of `n` queries uses draws
//! `b * n .. b * n + n`, query `i` draw `b * n + i`. Threads take contiguous runs of rows,
//! each starting from the state jumped ahead to its first row (Brown 1994, "Random number
//! generation with arbitrary strides": the LCG's `k`-fold step is itself an affine map, found
//! in O(log k) squarings), so the results do not depend on the number of threads.
//!
//! Each (row, column) sum is one sequential sum over the queries of that row, in query order
//! (randomization) or draw order (bootstrap), with nothing else added in: a column's results
//! are the same to the last bit whichever columns stand beside it and however the rows are
//! grouped. Rows are drawn `LANES` at a time, side by side, only so that the generator's
//! multiplications and the sums' additions of different rows overlap in the processor.

/// PCG64's multiplier (the PCG family's default 128-bit multiplier).
const MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;
/// 2^-53: numpy's `random()` is the draw's top 53 bits times this.
const UNIT: f64 = 1.0 / 9_007_199_254_740_992.0;
/// Rows drawn side by side: eight independent generators and sums keep the multiplier and
/// the adder busy, where one row's sums are a chain each addition of which waits for the last.
const LANES: usize = 8;
/// Queries whose draws are taken before they are summed: 256 x 8 lanes fit the L1 cache.
const CHUNK: usize = 256;
/// The fewest draws a thread is started for (fewer cost less than starting it).
const MIN_DRAWS_PER_THREAD: usize = 1 << 16;
const MAX_THREADS: usize = 64;

/// numpy's PCG64: 128-bit state and increment (the increment is odd).
#[derive(Clone, Copy)]
struct Pcg64 {
    state: u128,
    inc: u128,
}

impl Pcg64 {
    fn from_halves(state_hi: u64, state_lo: u64, inc_hi: u64, inc_lo: u64) -> Self {
        Pcg64 {
            state: (u128::from(state_hi) << 64) | u128::from(state_lo),
            inc: (u128::from(inc_hi) << 64) | u128::from(inc_lo),
        }
    }

    /// One step of the LCG, then XSL-RR of the new state.
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
        let s = self.state;
        (((s >> 64) as u64) ^ (s as u64)).rotate_right((s >> 122) as u32)
    }

    /// The generator `delta` steps ahead. One step is the affine map `x -> a x + c`; `k`
    /// steps are `x -> A x + C`, and the maps of `2k` steps are those of `k` composed with
    /// themselves, `(A^2, (A + 1) C)`: composing the maps of the bits set in `delta` takes
    /// O(log delta) multiplications, all modulo 2^128.
    fn advanced(mut self, mut delta: u128) -> Self {
        let (mut acc_mult, mut acc_plus) = (1u128, 0u128);
        let (mut cur_mult, mut cur_plus) = (MULTIPLIER, self.inc);
        while delta > 0 {
            if delta & 1 == 1 {
                acc_mult = acc_mult.wrapping_mul(cur_mult);
                acc_plus = acc_plus.wrapping_mul(cur_mult).wrapping_add(cur_plus);
            }
            cur_plus = cur_mult.wrapping_add(1).wrapping_mul(cur_plus);
            cur_mult = cur_mult.wrapping_mul(cur_mult);
            delta >>= 1;
        }
        self.state = acc_mult.wrapping_mul(self.state).wrapping_add(acc_plus);
        self
    }
}

/// What one row's draw becomes, and how a row's sums take it.
trait Kernel: Sync {
    /// A draw's value for query `i`'s place in the row: a flip's mask or a picked query.
    type Slot: Copy + Default;
    fn slot(&self, draw: u64) -> Self::Slot;
    /// Query `i`'s term of the row's sum of `column` (`slot` is that row's i-th slot).
    fn term(&self, column: &[f64], i: usize, slot: Self::Slot) -> f64;
    /// The row's result for column `j` from its sum.
    fn finish(&self, j: usize, sum: f64) -> f64;
}

/// The randomization test: `stat = total - 2 * sum of d_i over the flipped i`.
struct Flips<'a> {
    totals: &'a [f64],
}

impl Kernel for Flips<'_> {
    type Slot = u64;
    #[inline(always)]
    fn slot(&self, draw: u64) -> u64 {
        // Flipped (uniform < 0.5) when the top bit is clear: a mask of ones, else zeros. A
        // mask, not a 0/1 weight: the compiler made the weight a branch, mispredicted on
        // half the draws.
        !(((draw as i64) >> 63) as u64)
    }
    #[inline(always)]
    fn term(&self, column: &[f64], i: usize, mask: u64) -> f64 {
        // d_i or +0.0 (adding +0.0 changes no sum): the sum is that of the flipped d_i.
        f64::from_bits(column[i].to_bits() & mask)
    }
    #[inline(always)]
    fn finish(&self, j: usize, sum: f64) -> f64 {
        self.totals[j] - 2.0 * sum
    }
}

/// The paired bootstrap: the mean of the picked d_i.
struct Resamples {
    n: usize,
    /// `n * 2^-53`, exact (an integer below 2^53 times a power of two).
    scale: f64,
    last: i64,
}

impl Resamples {
    fn new(n: usize) -> Self {
        Resamples {
            n,
            scale: n as f64 * UNIT,
            last: n as i64 - 1,
        }
    }
}

impl Kernel for Resamples {
    type Slot = u32;
    #[inline(always)]
    fn slot(&self, draw: u64) -> u32 {
        // numpy's floor(n * u) for u = (draw >> 11) * 2^-53, truncated in doubles as
        // `astype(intp)` does. u is exact, so numpy's u * n is the real (draw >> 11) * n *
        // 2^-53 rounded once, and so is (draw >> 11) * scale: the same double, one
        // multiplication fewer. It can round up to n when u is within an ulp of 1, hence
        // the min.
        let x = (draw >> 11) as f64 * self.scale;
        // Safety: 0 <= x <= n <= 2^32 (`prf_resample_means` checks n), in i64's range.
        // (`as` would check the range and saturate: 10 instructions where 1 does.)
        let pick: i64 = unsafe { x.to_int_unchecked() };
        pick.min(self.last) as u32
    }
    #[inline(always)]
    fn term(&self, column: &[f64], _i: usize, pick: u32) -> f64 {
        // Safety: picks are below n (`slot`) and columns hold n values.
        unsafe { *column.get_unchecked(pick as usize) }
    }
    #[inline(always)]
    fn finish(&self, _j: usize, sum: f64) -> f64 {
        sum / self.n as f64
    }
}

/// `L` rows, starting with the one `rng` is at, into `out` (`L * m` values, row-major);
/// `rng` ends `L * n` draws further on.
#[inline(always)]
fn rows_side_by_side<K: Kernel, const L: usize>(
    kernel: &K,
    rng: &mut Pcg64,
    columns: &[f64],
    n: usize,
    m: usize,
    out: &mut [f64],
) {
    let mut lanes = [*rng; L];
    for (l, lane) in lanes.iter_mut().enumerate().skip(1) {
        *lane = rng.advanced((l * n) as u128);
    }
    let mut sums = vec![[0.0f64; L]; m];
    let mut slots = vec![[K::Slot::default(); L]; CHUNK.min(n)];
    for start in (0..n).step_by(CHUNK) {
        let len = CHUNK.min(n - start);
        let slots = &mut slots[..len];
        for row in slots.iter_mut() {
            for (slot, lane) in row.iter_mut().zip(lanes.iter_mut()) {
                *slot = kernel.slot(lane.next());
            }
        }
        for (j, sum) in sums.iter_mut().enumerate() {
            let column = &columns[j * n..(j + 1) * n];
            let mut acc = *sum;
            for (k, row) in slots.iter().enumerate() {
                for l in 0..L {
                    acc[l] += kernel.term(column, start + k, row[l]);
                }
            }
            *sum = acc;
        }
    }
    for (l, row) in out.chunks_exact_mut(m).enumerate() {
        for (j, value) in row.iter_mut().enumerate() {
            *value = kernel.finish(j, sums[j][l]);
        }
    }
    // The last lane ends where the row after the group starts.
    *rng = lanes[L - 1];
}

/// The rows of `out` (row-major, `m` values a row), the first drawn from `rng`.
fn rows<K: Kernel>(
    kernel: &K,
    mut rng: Pcg64,
    columns: &[f64],
    n: usize,
    m: usize,
    out: &mut [f64],
) {
    let mut groups = out.chunks_exact_mut(LANES * m);
    for group in &mut groups {
        rows_side_by_side::<K, LANES>(kernel, &mut rng, columns, n, m, group);
    }
    for row in groups.into_remainder().chunks_exact_mut(m) {
        rows_side_by_side::<K, 1>(kernel, &mut rng, columns, n, m, row);
    }
}

/// `n_rows` rows of `m` results into `out`, split over up to `threads` threads.
fn run<K: Kernel>(
    kernel: &K,
    rng: Pcg64,
    columns: &[f64],
    n: usize,
    m: usize,
    threads: usize,
    out: &mut [f64],
) {
    let n_rows = out.len() / m;
    let by_work = (n_rows * n / MIN_DRAWS_PER_THREAD).max(1);
    let threads = threads.clamp(1, MAX_THREADS).min(by_work).min(n_rows);
    if threads == 1 {
        return rows(kernel, rng, columns, n, m, out);
    }
    let per_thread = n_rows.div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = out.chunks_mut(per_thread * m);
        let first = parts.next();
        for (t, part) in parts.enumerate() {
            let start = rng.advanced(((t + 1) * per_thread) as u128 * n as u128);
            scope.spawn(move || rows(kernel, start, columns, n, m, part));
        }
        // The calling thread takes the first rows: one thread fewer to start.
        if let Some(part) = first {
            rows(kernel, rng, columns, n, m, part);
        }
    });
}

unsafe fn slice<'a, T>(p: *const T, len: usize) -> &'a [T] {
    if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, len)
    }
}

unsafe fn slice_mut<'a, T>(p: *mut T, len: usize) -> &'a mut [T] {
    if len == 0 {
        &mut []
    } else {
        std::slice::from_raw_parts_mut(p, len)
    }
}

/// `len` raw outputs of the PCG64 generator `(state, inc)` (numpy's `random_raw`), from
/// `skip` steps past that state (numpy's `advance(skip)`; `skip` is 128-bit: `skip_hi`,
/// `skip_lo`). A check of the generator and its jump ahead against numpy's.
///
/// Returns 0, or -1 after a panic (caught).
///
/// # Safety
/// `out` must be writable for `len` values.
#[no_mangle]
pub unsafe extern "C" fn prf_pcg64_raw(
    state_hi: u64,
    state_lo: u64,
    inc_hi: u64,
    inc_lo: u64,
    skip_hi: u64,
    skip_lo: u64,
    out: *mut u64,
    len: usize,
) -> i64 {
    crate::guarded(|| -1, || {
        let skip = (u128::from(skip_hi) << 64) | u128::from(skip_lo);
        let mut rng = Pcg64::from_halves(state_hi, state_lo, inc_hi, inc_lo).advanced(skip);
        for value in slice_mut(out, len) {
            *value = rng.next();
        }
        0
    })
}

/// The randomization test's statistics: `out[b * m + j] = totals[j] - 2 * sum_i f_bi d_ij`
/// for permutations `b < n_perm`, `f_bi = 1` when draw `b * n + i` of the PCG64 generator
/// `(state, inc)` is below 2^63 (a flip) and 0 otherwise, the sum taken over `i` in order.
/// `columns` holds the m columns of d one after the other (column j at `j * n`). Nothing
/// is done when `n`, `m` or `n_perm` is 0. The caller advances its generator `n_perm * n`
/// steps.
///
/// # Safety
/// `columns` must hold `n * m` values, `totals` `m`, and `out` be writable for `n_perm * m`.
#[no_mangle]
pub unsafe extern "C" fn prf_sign_flip_stats(
    state_hi: u64,
    state_lo: u64,
    inc_hi: u64,
    inc_lo: u64,
    columns: *const f64,
    n: usize,
    m: usize,
    totals: *const f64,
    n_perm: usize,
    threads: usize,
    out: *mut f64,
) -> i64 {
    crate::guarded(|| -1, || {
        if n == 0 || m == 0 || n_perm == 0 {
            return 0;
        }
        let rng = Pcg64::from_halves(state_hi, state_lo, inc_hi, inc_lo);
        let kernel = Flips {
            totals: slice(totals, m),
        };
        run(
            &kernel,
            rng,
            slice(columns, n * m),
            n,
            m,
            threads,
            slice_mut(out, n_perm * m),
        );
        0
    })
}

/// The paired bootstrap's resample means: `out[b * m + j] = (sum_i d_{p_bi, j}) / n` for
/// resamples `b < n_boot`, `p_bi = min(trunc(u * n), n - 1)` where `u` is draw `b * n + i` of
/// the PCG64 generator `(state, inc)` as numpy's double, the sum taken over `i` in order.
/// `columns` as for `prf_sign_flip_stats`; nothing is done when `n`, `m` or `n_boot` is 0,
/// or `n` exceeds 2^32. The caller advances its generator `n_boot * n` steps.
///
/// # Safety
/// `columns` must hold `n * m` values and `out` be writable for `n_boot * m`.
#[no_mangle]
pub unsafe extern "C" fn prf_resample_means(
    state_hi: u64,
    state_lo: u64,
    inc_hi: u64,
    inc_lo: u64,
    columns: *const f64,
    n: usize,
    m: usize,
    n_boot: usize,
    threads: usize,
    out: *mut f64,
) -> i64 {
    crate::guarded(|| -1, || {
        if n == 0 || m == 0 || n_boot == 0 || n > u32::MAX as usize + 1 {
            return 0;
        }
        let rng = Pcg64::from_halves(state_hi, state_lo, inc_hi, inc_lo);
        let kernel = Resamples::new(n);
        run(
            &kernel,
            rng,
            slice(columns, n * m),
            n,
            m,
            threads,
            slice_mut(out, n_boot * m),
        );
        0
    })
}
