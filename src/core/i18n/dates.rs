//! Month and weekday names in a language, for the date formats that write them out.

use super::Lang;

/// `strftime` with its full month (`%B`) and weekday (`%A`) names written in `lang`, for a
/// date in month `month` (1-12) on weekday `weekday` (1 Monday - 7 Sunday). English keeps the
/// pattern as it is (the formatter's own names are English).
pub fn localize_names(lang: Lang, strftime: &str, month: i8, weekday: i8) -> String {
    if lang == Lang::En || !(strftime.contains("%B") || strftime.contains("%A")) {
        return strftime.to_string();
    }
    let tr = lang.tr();
    let escape = |s: String| s.replace('%', "%%");
    strftime
        .replace("%B", &escape(tr.t(&format!("date-month-{month}"))))
        .replace("%A", &escape(tr.t(&format!("date-weekday-{weekday}"))))
}
