//! The heat map: a table's regions in key order across, time down (oldest at the top),
//! each cell coloured by the rate of writes (or reads) there, as SVG built on the server:
//! no script, nothing the page's Content-Security-Policy refuses (colours are attributes,
//! not styles). Under it a strip of the regions' sizes and store-file counts. Hovering a
//! column shows its start key (an SVG `<title>`).
//!
//! Many regions are bucketed: at most [`COLUMNS_MAX`] columns, each a run of neighbouring
//! regions, and at most [`ROWS_MAX`] rows, each a run of samples; so a table of 10,000
//! regions draws no more cells than one of 200.

use super::ring::Delta;
use super::view::TableView;
use crate::html::Html;
use crate::layout::key;

pub const COLUMNS_MAX: usize = 200;
pub const ROWS_MAX: usize = 120;
const WIDTH: f64 = 800.0;
const LEFT: f64 = 72.0;
const ROW_HEIGHT: f64 = 4.0;
const STRIP_HEIGHT: f64 = 24.0;
/// Lightest (no traffic) to darkest (the busiest cell).
const PALETTE: [&str; 9] = [
    "#f2f2f2", "#fff1b8", "#ffd97a", "#ffbd4a", "#ff9633", "#f2672a", "#d63d1f", "#a91d12",
    "#6e0b07",
];

/// Which rate colours the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Writes,
    Reads,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Writes => "writes",
            Metric::Reads => "reads",
        }
    }

    fn of(self, d: &Delta) -> u64 {
        match self {
            Metric::Writes => u64::from(d.writes),
            Metric::Reads => u64::from(d.reads),
        }
    }
}

/// The map's numbers: columns as runs of regions, rows as runs of samples, rates per cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Per column, its first and last region (indexes into the view's regions).
    pub columns: Vec<(usize, usize)>,
    /// Per row (oldest first), its rates per column (per second).
    pub rates: Vec<Vec<f64>>,
    pub max_rate: f64,
}

/// Buckets `view` into columns and rows.
pub fn grid(view: &TableView, metric: Metric) -> Grid {
    let n = view.regions.len();
    let c = n.min(COLUMNS_MAX);
    let column_of = |i: usize| i * c / n.max(1);
    let mut columns: Vec<(usize, usize)> = vec![(usize::MAX, 0); c];
    for i in 0..n {
        let col = &mut columns[column_of(i)];
        col.0 = col.0.min(i);
        col.1 = col.1.max(i);
    }
    // The first sample is the baseline: it covers no time.
    let samples: Vec<_> = view.samples.iter().filter(|s| s.1 > 0.0).collect();
    let per_row = samples.len().div_ceil(ROWS_MAX).max(1);
    let mut rates = Vec::new();
    let mut max_rate: f64 = 0.0;
    for group in samples.chunks(per_row) {
        let secs: f64 = group.iter().map(|s| s.1).sum();
        let mut row = vec![0.0; c];
        for (_, _, deltas) in group {
            for (i, d) in deltas {
                row[column_of(*i)] += metric.of(d) as f64;
            }
        }
        for v in &mut row {
            *v /= secs.max(f64::EPSILON);
            max_rate = max_rate.max(*v);
        }
        rates.push(row);
    }
    Grid {
        columns,
        rates,
        max_rate,
    }
}

/// The palette index of `rate`: 0 for none, else 1..=8 by its share of `max`.
pub fn level(rate: f64, max: f64) -> usize {
    if rate <= 0.0 || max <= 0.0 {
        return 0;
    }
    ((rate / max * 8.0).ceil() as usize).clamp(1, 8)
}

fn el(
    h: &mut Html,
    tag: &'static str,
    attrs: &[(&'static str, String)],
    body: impl FnOnce(&mut Html),
) {
    let borrowed: Vec<(&'static str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.el(tag, &borrowed, body);
}

fn px(v: f64) -> String {
    format!("{v:.2}")
}

/// Writes the map and its strip as one `<svg>`.
pub fn render(h: &mut Html, view: &TableView, metric: Metric) {
    let grid = grid(view, metric);
    let c = grid.columns.len().max(1);
    let cw = (WIDTH - LEFT) / c as f64;
    let map_h = (grid.rates.len().max(1) as f64) * ROW_HEIGHT;
    let strip_top = map_h + 6.0;
    let height = strip_top + 2.0 * STRIP_HEIGHT + 8.0;
    let label = format!(
        "{} per second by region (across, in key order) and time (down, oldest first); busiest cell {:.1}/s",
        metric.name(),
        grid.max_rate
    );
    el(
        h,
        "svg",
        &[
            ("class", "heatmap".into()),
            ("xmlns", "http://www.w3.org/2000/svg".into()),
            ("width", px(WIDTH)),
            ("height", px(height)),
            ("viewBox", format!("0 0 {WIDTH} {}", px(height))),
            ("role", "img".into()),
            ("aria-label", label.clone()),
        ],
        |h| {
            h.el_text("title", &[], &label);
            el(
                h,
                "rect",
                &[
                    ("x", px(LEFT)),
                    ("y", "0".into()),
                    ("width", px(WIDTH - LEFT)),
                    ("height", px(map_h)),
                    ("fill", PALETTE[0].into()),
                ],
                |_| {},
            );
            for (r, row) in grid.rates.iter().enumerate() {
                let y = px(r as f64 * ROW_HEIGHT);
                let mut col = 0;
                while col < row.len() {
                    let lvl = level(row[col], grid.max_rate);
                    let mut end = col + 1;
                    while end < row.len() && level(row[end], grid.max_rate) == lvl {
                        end += 1;
                    }
                    if lvl > 0 {
                        el(
                            h,
                            "rect",
                            &[
                                ("x", px(LEFT + col as f64 * cw)),
                                ("y", y.clone()),
                                ("width", px((end - col) as f64 * cw)),
                                ("height", px(ROW_HEIGHT)),
                                ("fill", PALETTE[lvl].into()),
                            ],
                            |_| {},
                        );
                    }
                    col = end;
                }
            }
            axis(h, view, map_h);
            strip(h, view, &grid, cw, strip_top);
            // Last, over everything: one hover target per column naming its keys.
            for (i, (first, last)) in grid.columns.iter().enumerate() {
                let title = column_title(view, *first, *last);
                el(
                    h,
                    "rect",
                    &[
                        ("class", "column".into()),
                        ("x", px(LEFT + i as f64 * cw)),
                        ("y", "0".into()),
                        ("width", px(cw)),
                        ("height", px(height)),
                        ("fill", "#000".into()),
                        ("fill-opacity", "0".into()),
                    ],
                    |h| {
                        h.el_text("title", &[], &title);
                    },
                );
            }
        },
    );
}

fn column_title(view: &TableView, first: usize, last: usize) -> String {
    let Some(region) = view.regions.get(first) else {
        return String::new();
    };
    let start = key(&region.start_key);
    if first == last {
        format!("start key '{start}' (region {})", region.encoded_name)
    } else {
        let end = view
            .regions
            .get(last)
            .map(|r| key(&r.start_key))
            .unwrap_or_default();
        format!(
            "start key '{start}' ({} regions, the last starting at '{end}')",
            last - first + 1
        )
    }
}

/// The time labels on the left: the oldest sample at the top, the newest at the bottom.
fn axis(h: &mut Html, view: &TableView, map_h: f64) {
    let times: Vec<_> = view
        .samples
        .iter()
        .filter(|s| s.1 > 0.0)
        .map(|s| s.0)
        .collect();
    let (Some(first), Some(last)) = (times.first(), times.last()) else {
        return;
    };
    for (t, y) in [(first, 10.0), (last, map_h.max(10.0))] {
        el(
            h,
            "text",
            &[
                ("x", "0".into()),
                ("y", px(y)),
                ("font-size", "10".into()),
                ("fill", "#555".into()),
            ],
            |h| {
                h.text(&crate::units::time_of_day(*t));
            },
        );
    }
}

/// Two bar rows under the map: size (memstore and files) and store-file count per column.
fn strip(h: &mut Html, view: &TableView, grid: &super::map::Grid, cw: f64, top: f64) {
    let sums: Vec<(u64, usize)> = grid
        .columns
        .iter()
        .map(|(first, last)| {
            view.regions[*first..=*last]
                .iter()
                .fold((0, 0), |(b, f), r| (b + r.size_bytes, f + r.store_files))
        })
        .collect();
    let max_bytes = sums.iter().map(|s| s.0).max().unwrap_or(0).max(1) as f64;
    let max_files = sums.iter().map(|s| s.1).max().unwrap_or(0).max(1) as f64;
    for (row, name, fill) in [(0, "size", "#4a78b5"), (1, "store files", "#8a8a8a")] {
        let base = top + (row as f64 + 1.0) * STRIP_HEIGHT;
        el(
            h,
            "text",
            &[
                ("x", "0".into()),
                ("y", px(base - 4.0)),
                ("font-size", "10".into()),
                ("fill", "#555".into()),
            ],
            |h| {
                h.text(name);
            },
        );
        for (i, (bytes, files)) in sums.iter().enumerate() {
            let share = if row == 0 {
                *bytes as f64 / max_bytes
            } else {
                *files as f64 / max_files
            };
            let bar = (share * (STRIP_HEIGHT - 4.0)).max(if share > 0.0 { 1.0 } else { 0.0 });
            if bar > 0.0 {
                let title = if row == 0 {
                    crate::units::bytes(*bytes)
                } else {
                    format!("{files} store files")
                };
                el(
                    h,
                    "rect",
                    &[
                        ("x", px(LEFT + i as f64 * cw)),
                        ("y", px(base - bar)),
                        ("width", px(cw.max(1.0))),
                        ("height", px(bar)),
                        ("fill", fill.into()),
                    ],
                    |h| {
                        h.el_text("title", &[], &title);
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heat::ring::RegionReading;
    use std::time::{Duration, SystemTime};

    fn view(regions: usize, samples: usize) -> TableView {
        let regions: Vec<RegionReading> = (0..regions)
            .map(|i| RegionReading {
                start_key: format!("{i:06}").into(),
                size_bytes: i as u64,
                store_files: 1,
                ..RegionReading::new(
                    basalt_types::TableName::parse("t").expect("valid"),
                    &format!("r{i}"),
                )
            })
            .collect();
        let n = regions.len();
        let samples = (0..samples)
            .map(|s| {
                let at = SystemTime::UNIX_EPOCH + Duration::from_secs(5 * s as u64);
                let deltas = (0..n)
                    .step_by(7)
                    .map(|i| {
                        (
                            i,
                            Delta {
                                writes: (i % 50) as u32,
                                reads: 1,
                                ..Delta::default()
                            },
                        )
                    })
                    .collect();
                (at, if s == 0 { 0.0 } else { 5.0 }, deltas)
            })
            .collect();
        TableView {
            regions,
            samples,
            ..TableView::default()
        }
    }

    #[test]
    fn many_regions_are_bucketed_into_at_most_the_column_limit() {
        let g = grid(&view(10_000, 720), Metric::Writes);
        assert_eq!(g.columns.len(), COLUMNS_MAX);
        assert_eq!(g.columns[0], (0, 49));
        assert_eq!(g.columns[199], (9950, 9999));
        assert!(g.rates.len() <= ROWS_MAX);
    }

    #[test]
    fn few_regions_get_a_column_each_and_rates_per_second() {
        let g = grid(&view(3, 3), Metric::Writes);
        assert_eq!(g.columns, vec![(0, 0), (1, 1), (2, 2)]);
        assert_eq!(g.rates.len(), 2, "the baseline sample covers no time");
        assert_eq!(g.rates[0][0], 0.0);
        let reads = grid(&view(3, 3), Metric::Reads);
        assert_eq!(reads.rates[0][0], 0.2);
    }

    #[test]
    fn levels_scale_to_the_busiest_cell() {
        assert_eq!(level(0.0, 10.0), 0);
        assert_eq!(level(0.01, 10.0), 1);
        assert_eq!(level(10.0, 10.0), 8);
    }

    #[test]
    fn a_ten_thousand_region_map_renders_quickly_and_small() {
        let v = view(10_000, 720);
        let started = std::time::Instant::now();
        let mut h = Html::default();
        render(&mut h, &v, Metric::Writes);
        let elapsed = started.elapsed();
        let svg = h.into_string();
        assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
        assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
        assert_eq!(svg.matches("class=\"column\"").count(), COLUMNS_MAX);
        assert!(svg.contains("<title>start key &#39;000000&#39; (50 regions"));
    }
}
