/* The HTML pages' common parts (render_report_html.h): escaping, virtual times, the head with
 * its inline style and the tail with its inline script. Nothing is loaded from anywhere: the
 * Content-Security-Policy of the head forbids it. */
#include <string.h>

#include "render/render_report_html.h"

void kp__html_esc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') fputs("&#xFFFD;", f);
            else fputc(*s, f);
        }
    }
}

void kp__html_vtime(int64_t ms, char *buf, size_t cap) {
    kp_duration_format(ms * 1000000, buf, cap);
}

static const char STYLE[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1000px;padding:12px;"
    "color:#222;background:#fff}h1{font-size:20px}h2{font-size:16px;border-bottom:1px solid #ccc;"
    "margin-top:24px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;"
    "padding:2px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}.num{text-align:"
    "right;white-space:nowrap}.answer{font-size:16px;background:#f4f6fa;border-left:4px solid "
    "#1f77b4;padding:6px 10px}"
    ".chart{display:block;width:100%;height:auto;background:#fafafa;border:1px solid #ddd;"
    "margin:6px 0 2px}.chart "
    "text{font-size:11px;fill:#333}.axis{stroke:#888}.series{stroke-width:2}"
    ".edge{stroke:#888}.root{fill:#d62728}.victim{fill:#1f77b4}"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin-bottom:8px}"
    ".key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}"
    ".more{color:#555;font-size:12px}"
    ".cards{display:flex;flex-wrap:wrap;gap:8px;margin:6px 0}.card{border:1px solid #ddd;"
    "border-radius:4px;padding:6px 10px;flex:1 1 110px;min-width:0;overflow-wrap:anywhere}.card "
    "b{display:block;"
    "font-size:20px}.card.zero{color:#999}.top li{margin:2px 0;overflow-wrap:anywhere}"
    ".sev-critical{background:#d62728;color:#fff}.sev-warning{background:#ff7f0e;color:#fff}"
    ".sev-info{background:#1f77b4;color:#fff}.sev{padding:0 6px;border-radius:3px;font-size:12px}"
    ".finding{border-left:4px solid #ccc;padding:4px 10px;margin:8px 0;overflow-wrap:anywhere}"
    ".detail{white-space:pre-wrap;color:#555}summary{cursor:pointer;color:#1f4e8c}"
    ".Warning td.type{color:#d62728}#log td{font-family:monospace;font-size:12px}"
    ".filters{display:flex;flex-wrap:wrap;gap:8px;margin:6px 0}.hidden{display:none}"
    ".cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}"
    "body.wide{max-width:1400px}.pos{color:#d62728}.neg{color:#2ca02c}";

/* the filter: rows of #log whose type, reason and text match stay shown */
static const char SCRIPT[] =
    "(function(){var t=document.getElementById('f-type'),r=document.getElementById('f-reason'),"
    "q=document.getElementById('f-text'),rows=document.querySelectorAll('#log tbody tr'),"
    "n=document.getElementById('f-count');function apply(){var tv=t?t.value:'',rv=r?r.value:'',"
    "qv=q?q.value.toLowerCase():'',shown=0;for(var i=0;i<rows.length;i++){var e=rows[i],"
    "ok=(!tv||e.getAttribute('data-type')===tv)&&(!rv||e.getAttribute('data-reason')===rv)&&"
    "(!qv||e.textContent.toLowerCase().indexOf(qv)>=0);e.classList.toggle('hidden',!ok);"
    "if(ok)shown++;}if(n)n.textContent=shown+' of '+rows.length+' events';}"
    "[t,r,q].forEach(function(x){if(x){x.addEventListener('input',apply);"
    "x.addEventListener('change',apply);}});apply();"
    "document.body.setAttribute('data-report-ready',String(document.querySelectorAll("
    "'svg.chart').length));})();";

void kp__html_head(FILE *f, const char *title, bool wide) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\"><title>",
          f);
    kp__html_esc(f, title);
    fprintf(f, "</title><style>%s</style></head><body%s>\n", STYLE, wide ? " class=\"wide\"" : "");
}

void kp__html_tail(FILE *f) { fprintf(f, "<script>%s</script>\n</body></html>\n", SCRIPT); }
