/* SPDX-License-Identifier: MIT */
/* A playing video keeps the screen awake: while a <video> of the page plays, diptych-web holds
   the compositor's idleInhibit (the kiosk's idle timeout does not blank the screen under it);
   when the last one pauses, ends or leaves, or the page navigates, it lets go. */
#include "diptych-web.h"
#include "event-log.h"

/* In diptych-web's own world: media events do not bubble, so they are caught on their way
   down (capture) at the document. */
const char *video_script =
    "(function(){var h=window.webkit.messageHandlers.diptychVideo,playing=new Set();"
    "function send(){h.postMessage(playing.size>0?1:0)}"
    "document.addEventListener('playing',function(e){if(e.target instanceof HTMLVideoElement&&!playing.has(e.target)){playing.add(e.target);send()}},true);"
    "['pause','ended','emptied','abort','error'].forEach(function(t){document.addEventListener(t,function(e){if(playing.delete(e.target))send()},true)});"
    "})();";

void set_idle_inhibit(int on) {
    on = on ? 1 : 0;
    if (on == app.inhibiting || !app.dc) return;
    app.inhibiting = on;
    dc_idle_inhibit(app.dc, on);
    GString *line = log_start("idleInhibit");
    g_string_append_printf(line, ",\"on\":%s", on ? "true" : "false");
    log_line(line);
}

void on_video_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager; (void)data;
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    set_idle_inhibit(jsc_value_is_number(v) && jsc_value_to_int32(v) == 1);
}
