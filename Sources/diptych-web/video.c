/* SPDX-License-Identifier: MIT */
/* A video someone watches keeps the screen awake: diptych-web holds the compositor's
   idleInhibit (the kiosk's idle timeout does not blank the screen under it) while a <video> of
   the page plays that is visible (in the viewport; not display:none, visibility:hidden, of
   no size or of opacity 0) and either audible (not muted, its volume above 0) or large (at least
   a quarter of the viewport). An invisible, muted or tiny looping video does not keep the screen
   on for ever. When none is left (paused, ended, gone, hidden, or the page navigated) it lets
   go. (view.h) */
#include "view.h"

/* In diptych-web's own world: media events do not bubble, so they are caught on their way
   down (capture) at the document. What plays is judged again on play, pause, volumechange,
   resize and scroll, and every second while something plays (a style change fires no event). */
const char *video_script =
    "(function(){var h=window.webkit.messageHandlers.diptychVideo,playing=new Set(),timer=0,sent=-1;"
    /* The part of the viewport a video shows in (px²), 0 when none of it shows. */
    "function shown(v){if(!v.isConnected||v.paused||v.ended)return 0;var r=v.getBoundingClientRect(),W=innerWidth,H=innerHeight;"
    "var w=Math.min(r.right,W)-Math.max(r.left,0),t=Math.min(r.bottom,H)-Math.max(r.top,0);if(w<=0||t<=0)return 0;"
    "var s=getComputedStyle(v);if(s.visibility!=='visible'||s.display==='none')return 0;"
    "var o=1;for(var e=v;e&&e.nodeType===1;e=e.parentElement){var c=e===v?s:getComputedStyle(e);if(c.display==='none')return 0;o*=parseFloat(c.opacity);}"
    "return o>0.01?w*t:0;}"
    "function judge(){var on=0,big=innerWidth*innerHeight/4;playing.forEach(function(v){if(v.paused||v.ended||!v.isConnected){playing.delete(v);return;}"
    "var a=shown(v);if(a>0&&((!v.muted&&v.volume>0)||a>=big))on=1;});"
    "if(playing.size&&!timer)timer=setInterval(judge,1000);if(!playing.size&&timer){clearInterval(timer);timer=0;}"
    "if(on!==sent){sent=on;h.postMessage(on);}}"
    "document.addEventListener('playing',function(e){if(e.target instanceof HTMLVideoElement)playing.add(e.target);judge();},true);"
    "['pause','ended','emptied','abort','error','volumechange'].forEach(function(t){document.addEventListener(t,function(e){if(e.target instanceof HTMLVideoElement)judge();},true)});"
    "addEventListener('resize',judge);document.addEventListener('scroll',judge,true);"
    "})();";

void web_view_idle_inhibit(struct web_view *view, int on) {
    on = on ? 1 : 0;
    if (on == view->inhibiting || !view->dc) return;
    view->inhibiting = on;
    dc_idle_inhibit(view->dc, on);
    GString *line = log_start("idleInhibit");
    g_string_append_printf(line, ",\"on\":%s", on ? "true" : "false");
    log_line(line);
    g_string_free(line, TRUE);
}

void on_video_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer view) {
    (void)manager;
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    web_view_idle_inhibit(view, jsc_value_is_number(v) && jsc_value_to_int32(v) == 1);
}
