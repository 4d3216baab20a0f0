use crate::row::{Goal, Row};

#[test]
fn goal_lines_have_the_common_form() {
    let row = Row::new("x", Ok(90.0), 0)
        .bare(Ok(100.0))
        .goal(Goal::RatioAtLeast(0.8), "req/s, a2a / bare");
    assert_eq!(
        row.verdict().map(|(_, line)| line).as_deref(),
        Some("Goal: req/s, a2a / bare >= 0.80: PASS (0.90)")
    );
    let row = Row::new("x", Ok(300.0), 0)
        .bare(Ok(100.0))
        .goal(Goal::RatioAtMost(2.0), "p99, a2a / bare");
    assert_eq!(
        row.verdict().map(|(_, line)| line).as_deref(),
        Some("Goal: p99, a2a / bare <= 2.00: FAIL (3.00)")
    );
    let row = Row::new("x", Err("missing".to_owned()), 0)
        .goal(Goal::AtMost(1024.0), "memory per task, bytes");
    assert_eq!(
        row.verdict().map(|(_, line)| line).as_deref(),
        Some("Goal: memory per task, bytes <= 1024: ERROR")
    );
    assert!(Row::new("x", Ok(1.0), 0).verdict().is_none());
}
