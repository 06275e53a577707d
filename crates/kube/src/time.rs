//! Calendar dates without a clock: RFC 3339 timestamps as the apiserver writes them, and
//! HTTP dates. Times are Unix seconds or milliseconds; nothing here reads the time.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1-12, day 1-31) of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Milliseconds since the Unix epoch of an RFC 3339 timestamp (`2025-01-01T00:00:00Z`,
/// fractional seconds and `+hh:mm` offsets accepted, as Go's `time.RFC3339` parser does;
/// anything else, an impossible date included, is `None`).
pub fn parse_rfc3339_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59
    {
        return None;
    }
    let mut i = 19;
    let mut ms = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        let frac = &s[start..i.min(start + 3)];
        ms = frac.parse::<i64>().ok()? * 10i64.pow(3 - frac.len() as u32);
    }
    let offset_s = match b.get(i) {
        Some(b'Z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            let v = oh * 3600 + om * 60;
            if sign == b'+' {
                v
            } else {
                -v
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) - offset_s) * 1000 + ms)
}

/// Appends RFC 3339 in UTC with second precision (Go's
/// `t.UTC().Format(time.RFC3339)`, the apiserver's timestamps) of `unix_s`.
pub fn write_rfc3339(out: &mut String, unix_s: i64) {
    let (y, m, d) = civil_from_days(unix_s.div_euclid(86_400));
    let rem = unix_s.rem_euclid(86_400);
    let two = |out: &mut String, v: i64| {
        out.push((b'0' + (v / 10 % 10) as u8) as char);
        out.push((b'0' + (v % 10) as u8) as char);
    };
    let y = y.max(0);
    two(out, y / 100);
    two(out, y % 100);
    out.push('-');
    two(out, m);
    out.push('-');
    two(out, d);
    out.push('T');
    two(out, rem / 3600);
    out.push(':');
    two(out, (rem / 60) % 60);
    out.push(':');
    two(out, rem % 60);
    out.push('Z');
}

/// [`write_rfc3339`] of a time in Unix milliseconds (the second it falls in).
pub fn format_rfc3339(unix_ms: i64) -> String {
    let mut s = String::with_capacity(20);
    write_rfc3339(&mut s, unix_ms.div_euclid(1000));
    s
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// An HTTP date as Go's `http.TimeFormat` writes it (IMF-fixdate, RFC 9110):
/// `Thu, 29 Feb 2024 13:04:05 GMT`.
pub fn http_date(unix_s: i64) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    let days = unix_s.div_euclid(86_400);
    let rem = unix_s.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{}, {:02} {} {} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[days.rem_euclid(7) as usize],
        day,
        MONTHS[(month - 1) as usize],
        year,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Unix seconds of an HTTP date in any of the three forms a recipient must accept
/// (RFC 9110 section 5.6.7): IMF-fixdate, the obsolete RFC 850 form (two-digit years:
/// the nearest century not far in the future) and asctime.
pub fn parse_http_date(s: &str) -> Option<i64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let (day, month, year, time) = match parts.as_slice() {
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        [wd, d, m, y, t, "GMT"] if wd.ends_with(',') => (*d, *m, year4(y)?, *t),
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        [wd, dmy, t, "GMT"] if wd.ends_with(',') => {
            let mut it = dmy.split('-');
            let (d, m, y) = (it.next()?, it.next()?, it.next()?);
            if it.next().is_some() || y.len() != 2 {
                return None;
            }
            let yy: i64 = y.parse().ok()?;
            (d, m, if yy < 70 { 2000 + yy } else { 1900 + yy }, *t)
        }
        // asctime: Sun Nov  6 08:49:37 1994
        [_, m, d, t, y] => (*d, *m, year4(y)?, *t),
        _ => return None,
    };
    let day: i64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let mut hms = time.split(':');
    let mut field = |max: i64| -> Option<i64> {
        let v = hms.next()?;
        (v.len() == 2).then_some(())?;
        v.parse().ok().filter(|x| (0..=max).contains(x))
    };
    let (h, mi, sec) = (field(23)?, field(59)?, field(60)?);
    if hms.next().is_some() {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3_600 + mi * 60 + sec)
}

fn year4(y: &str) -> Option<i64> {
    (y.len() == 4).then_some(())?;
    y.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trip() {
        assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339_ms("2025-01-01T00:00:00Z"),
            Some(1_735_689_600_000)
        );
        assert_eq!(
            parse_rfc3339_ms("2025-01-01T02:00:00.123456+02:00"),
            Some(1_735_689_600_123)
        );
        assert_eq!(
            format_rfc3339(parse_rfc3339_ms("2024-02-29T23:59:59Z").unwrap()),
            "2024-02-29T23:59:59Z"
        );
        assert_eq!(format_rfc3339(-62_135_596_800_000), "0001-01-01T00:00:00Z");
        for bad in [
            "",
            "2025-01-01",
            "2025-13-01T00:00:00Z",
            "2025-02-30T00:00:00Z",
            "2025-01-01T00:00:00",
            "2025-01-01T00:00:00.Z",
            "2025-01-01 00:00:00Z",
            "2025-01-01T00:00:00Zjunk",
        ] {
            assert_eq!(parse_rfc3339_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn civil_days_round_trip_across_leap_years_and_centuries() {
        for days in (-800_000..800_000).step_by(97) {
            let (y, m, d) = civil_from_days(days);
            assert!((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m));
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn http_dates_in_all_three_forms() {
        let t = 1_709_211_845; // 2024-02-29 13:04:05 UTC
        assert_eq!(http_date(t), "Thu, 29 Feb 2024 13:04:05 GMT");
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(parse_http_date(&http_date(t)), Some(t));
        assert_eq!(
            parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            parse_http_date("Sun Nov  6 08:49:37 1994"),
            Some(784_111_777)
        );
        for bad in [
            "",
            "Sun, 06 Nov 1994 08:49 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }
}
