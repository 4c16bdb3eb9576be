//! Timing: engines measured side by side in interleaved rounds, and markdown cells for the results.
//!
//! Each round runs every engine of a comparison once, in order, so a change of machine load during a comparison hits
//! all engines alike (the development machines are shared). The first round is a warm-up and is dropped unless one of
//! its runs took long enough (0.5 s) that caches and allocator state no longer matter; then it counts.

use std::time::{Duration, Instant};

/// How many samples to take.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Timed rounds wanted.
    pub rounds: usize,
    /// A comparison stops after this much time once it has `min_rounds` rounds.
    pub budget: Duration,
    /// Rounds taken whatever the budget.
    pub min_rounds: usize,
}

impl Plan {
    /// `--quick`: three rounds.
    pub const QUICK: Plan = Plan { rounds: 3, budget: Duration::from_secs(2), min_rounds: 3 };
    /// The default: up to 15 rounds within 20 s per comparison, at least 5.
    pub const FULL: Plan = Plan { rounds: 15, budget: Duration::from_secs(20), min_rounds: 5 };
}

/// Run times of one engine, in seconds.
#[derive(Clone, Debug, Default)]
pub struct Samples(pub Vec<f64>);

impl Samples {
    fn sorted(&self) -> Vec<f64> {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        v
    }
    /// The median (mean of the middle two for an even count).
    pub fn median(&self) -> f64 {
        let v = self.sorted();
        match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }
    pub fn min(&self) -> f64 {
        self.0.iter().copied().fold(f64::INFINITY, f64::min)
    }
    pub fn max(&self) -> f64 {
        self.0.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }
    /// `median (min–max)`.
    pub fn cell(&self) -> String {
        format!("{} ({}–{})", time(self.median()), time(self.min()), time(self.max()))
    }
}

/// Times `engines` in interleaved rounds under `plan`; returns one [`Samples`] per engine.
pub fn compare(plan: Plan, engines: &mut [&mut dyn FnMut()]) -> Vec<Samples> {
    let mut samples = vec![Samples::default(); engines.len()];
    let once = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let started = Instant::now();
    let warm_up: Vec<f64> = engines.iter_mut().map(|f| once(&mut **f)).collect();
    if warm_up.iter().any(|&t| t >= 0.5) {
        for (s, t) in samples.iter_mut().zip(warm_up) {
            s.0.push(t);
        }
    }
    while samples[0].0.len() < plan.rounds && (samples[0].0.len() < plan.min_rounds || started.elapsed() < plan.budget)
    {
        for (s, f) in samples.iter_mut().zip(engines.iter_mut()) {
            s.0.push(once(&mut **f));
        }
    }
    samples
}

/// A duration in seconds with three significant digits and a unit.
pub fn time(seconds: f64) -> String {
    let (value, unit) = if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else {
        (seconds * 1e6, "µs")
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {unit}")
}

/// The ratio cell of a comparison: the peer's median time over Whale's. Above 1 Whale is faster; below 1 the cell
/// says in bold that Whale is behind.
pub fn ratio(whale: &Samples, peer: &Samples) -> String {
    let r = peer.median() / whale.median();
    if r >= 1.0 {
        format!("{r:.2}× (Whale ahead)")
    } else {
        format!("**{r:.2}× (Whale behind)**")
    }
}

/// A rate: `count / seconds` in millions per second.
pub fn rate(count: usize, seconds: f64) -> String {
    format!("{:.2} M/s", count as f64 / seconds / 1e6)
}

/// A count with thousands separators.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells() {
        assert_eq!(thousands(1_000_003), "1,000,003");
        assert_eq!(thousands(999), "999");
        assert_eq!(time(0.0123), "12.3 ms");
        assert_eq!(time(2.5), "2.50 s");
        let s = Samples(vec![3.0, 1.0, 2.0, 10.0]);
        assert_eq!(s.median(), 2.5);
        assert_eq!((s.min(), s.max()), (1.0, 10.0));
    }
}
