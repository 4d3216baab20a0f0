//! Conversions between the generated `lf.a2a.v1` messages and `a2a-types`.
