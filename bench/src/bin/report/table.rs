//! The printed table and the block of goal lines.

use std::io::Write as _;

use crate::row::Row;

/// Prints the table; returns whether a figure is missing.
pub(crate) fn print_table(rows: &[Row], notes: &[String]) -> anyhow::Result<bool> {
    let mut out = std::io::stdout().lock();
    let header = ["figure", "a2a serve", "bare", "a2a/bare", "goal", "result"];
    let mut lines = vec![header.map(str::to_owned)];
    let mut errors: Vec<String> = Vec::new();
    for row in rows {
        let shown = |value: &Result<f64, String>| match value {
            Ok(value) => format!("{value:.*}", row.decimals),
            Err(_) => "n/a".to_owned(),
        };
        for error in [Some(&row.value), row.bare.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|value| value.as_ref().err())
        {
            if !errors.contains(error) {
                errors.push(error.clone());
            }
        }
        let (goal, result) = match row.verdict() {
            Some((goal, line)) => {
                let result = line.rsplit(": ").next().unwrap_or_default();
                let result = result.split(' ').next().unwrap_or_default().to_owned();
                (goal, result)
            }
            None => ("-".to_owned(), "-".to_owned()),
        };
        lines.push([
            row.figure.clone(),
            shown(&row.value),
            row.bare.as_ref().map_or_else(|| "-".to_owned(), shown),
            row.ratio()
                .map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
            goal,
            result,
        ]);
    }
    let mut widths = [0; 6];
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for (index, line) in lines.iter().enumerate() {
        let mut text = String::new();
        for (column, (cell, width)) in line.iter().zip(widths).enumerate() {
            let pad = width - cell.chars().count();
            if column == 0 {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str("  ");
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            }
        }
        writeln!(out, "{}", text.trim_end())?;
        if index == 0 {
            writeln!(out, "{}", "-".repeat(widths.iter().sum::<usize>() + 2 * 5))?;
        }
    }
    for note in notes {
        writeln!(out, "note: {note}")?;
    }
    for error in &errors {
        writeln!(out, "error: {error}")?;
    }
    Ok(!errors.is_empty())
}
