/* SPDX-License-Identifier: MIT */
/* diptych-web's text input: WebKit's input-method context as the compositor's `textInput`, its
   typing back into the page, and the field's life from the input that focused it to the blur.

   WebKit tells the context when an editable element gains or loses focus, its purpose and hints,
   the caret's rectangle and the text around it; each becomes the field's state, sent to the
   compositor. The keyboard's text is the context's `committed` signal, a deletion its
   `delete-surrounding`; the keyboard's return and delete come as keys, as hardware keys do, and
   the context lets every key through (filter_key_event returns FALSE), so hardware typing is
   untouched. WPE 2.38 has no `search` purpose and nothing for `enterkeyhint`: a script in
   diptych-web's own world reads those of the focused element, and its form: whether it submits
   (return says go), is a search (search), and has fields before and after it that take text
   (‹ ›, which send Tab and Shift+Tab: the script moves the focus among those fields, as Safari's
   Tab does).

   Taps, not time (protocol 9): an enabling state names the serial of the input after which the
   field was focused, the last tap or key the page was sent, if the field was focused before the
   page had drawn its answer and within a second of it (WebKit's focus-in, or the script's focusin for a focus moving from
   field to field, which WebKit does not tell); a focus by script with nothing before it names 0
   (no keyboard). A tap on the field already focused (the script says so) names that tap. Leaving the field for
   any reason (a blur, a tap elsewhere, the keyboard's dismiss key, a navigation) sends the
   disable. The state goes once the loop is free (and before a round trip's answer): a
   focus-out and a focus-in in the same turn (Tab) are one state, the keyboard stays up.

   The keyboard this app raised covers the pane's bottom: the app gives the view the pane's
   height less it, so the page can scroll every field above it and `innerHeight` says so, and
   the focused field is scrolled into view once the page has its new height. Not while a script
   dialog or a sign-in shows (the keyboard is the alert's field's, and the page, blocked, could
   not take a new height): the view follows the keyboard again once it closes. (field.h) */
#include "field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REFOCUS_MS 300
/* How long the last input may still be what focuses a field when the page has not said it drew
   its answer (ms of the monotonic clock): requestAnimationFrame stops while the page is hidden
   or blocked in a dialog, and a focus much later is a script's. */
#define INPUT_FOCUS_MS 1000
/* The view keeps at least this height (CSS px) above the keyboard. */
#define VIEW_MIN 64
/* Room kept between the focused field and the keyboard when it is scrolled into view (CSS px). */
#define REVEAL_MARGIN 16

/* The context, which knows its field. */
typedef struct { WebKitInputMethodContext parent; struct web_field *field; } DiptychIm;
typedef struct { WebKitInputMethodContextClass parent; } DiptychImClass;
static GType diptych_im_get_type(void);
G_DEFINE_TYPE(DiptychIm, diptych_im, WEBKIT_TYPE_INPUT_METHOD_CONTEXT)

static struct web_field *field_of(WebKitInputMethodContext *c) { return ((DiptychIm *)c)->field; }

/* ---- the field's state to the compositor ---- */

static int purpose_of(WebKitInputPurpose p) {
    switch (p) {
    case WEBKIT_INPUT_PURPOSE_DIGITS: return DC_PURPOSE_DIGITS;
    case WEBKIT_INPUT_PURPOSE_NUMBER: return DC_PURPOSE_NUMBER;
    case WEBKIT_INPUT_PURPOSE_PHONE: return DC_PURPOSE_PHONE;
    case WEBKIT_INPUT_PURPOSE_URL: return DC_PURPOSE_URL;
    case WEBKIT_INPUT_PURPOSE_EMAIL: return DC_PURPOSE_EMAIL;
    case WEBKIT_INPUT_PURPOSE_PASSWORD: return DC_PURPOSE_PASSWORD;
    default: return DC_PURPOSE_TEXT;
    }
}

/* WebKit's hints for a field of `purpose`: a plain text field with no autocapitalize of its
   own capitalises sentences, as Safari's do. */
static uint32_t hints_of(WebKitInputHints h, int purpose) {
    uint32_t out = 0;
    if (h & WEBKIT_INPUT_HINT_INHIBIT_OSK) out |= DC_HINT_NO_KEYBOARD;
    if (h & WEBKIT_INPUT_HINT_UPPERCASE_CHARS) out |= DC_HINT_CAPITALIZE_ALL;
    else if (h & WEBKIT_INPUT_HINT_UPPERCASE_WORDS) out |= DC_HINT_CAPITALIZE_WORDS;
    else if (h & WEBKIT_INPUT_HINT_UPPERCASE_SENTENCES) out |= DC_HINT_CAPITALIZE_SENTENCES;
    else if (!(h & WEBKIT_INPUT_HINT_LOWERCASE) && purpose == DC_PURPOSE_TEXT) out |= DC_HINT_CAPITALIZE_SENTENCES;
    if (!(h & WEBKIT_INPUT_HINT_SPELLCHECK) || purpose == DC_PURPOSE_PASSWORD) out |= DC_HINT_NO_AUTOCORRECT;
    return out;
}

void web_field_send(struct web_field *field, const struct web_pane *pane, const struct web_band *band) {
    if (!field->dc || !pane->configured) return;
    WebKitInputMethodContext *c = field->context;
    int purpose = purpose_of(webkit_input_method_context_get_input_purpose(c));
    /* (A password stays one whatever its inputmode: a PIN field.) */
    if (field->mode_purpose >= 0 && purpose != DC_PURPOSE_PASSWORD) purpose = field->mode_purpose;
    else if (field->search && purpose == DC_PURPOSE_TEXT) purpose = DC_PURPOSE_SEARCH;
    uint32_t hints = hints_of(webkit_input_method_context_get_input_hints(c), purpose) | field->form_hints;
    if (field->no_keyboard) hints |= DC_HINT_NO_KEYBOARD;
    dc_text_state s = {
        .enabled = field->focused, .purpose = purpose, .hints = hints, .return_key = field->return_key,
        .caret_x = field->caret[0] - field->scroll[0], .caret_y = field->caret[1] - field->scroll[1] + web_band_top(band, pane),
        .caret_width = field->caret[2], .caret_height = field->caret[3],
        /* A password's text never leaves the page. */
        .surrounding = purpose == DC_PURPOSE_PASSWORD ? "" : field->surrounding,
    };
    uint32_t serial = field->focused ? field->serial : 0;
    if (web_debug) say("text input %s serial %u purpose %d hints 0x%x return %d caret %g,%g %gx%g before \"%s\"", s.enabled ? "on" : "off", serial,
                       purpose, hints, s.return_key, s.caret_x, s.caret_y, s.caret_width, s.caret_height, s.surrounding);
    dc_text_input_serial(field->dc, &s, serial);
}

static gboolean send_now(gpointer data) {
    struct web_field *field = data;
    field->send_source = 0;
    web_hook_call(&field->send);
    return G_SOURCE_REMOVE;
}

/* The state sent once the loop is free: what WebKit and the script say of one focus change (a
   focus-out and a focus-in, the purpose, the form's neighbours) goes as one state. */
static void send(struct web_field *field) {
    if (!field->send_source) field->send_source = g_idle_add(send_now, field);
}

void web_field_flush(struct web_field *field) {
    if (!field->send_source) return;
    g_source_remove(field->send_source);
    send_now(field);
}

/* ---- the input that focused it ---- */

/* Whether the input the page was sent last may still be what focuses a field: until the page
   has drawn its answer (a focus its handlers make, however many, is the input's), and for
   INPUT_FOCUS_MS at most. */
static int input_pending(const struct web_field *field) {
    return field->input.pending && g_get_monotonic_time() - field->input.at_us <= (gint64)INPUT_FOCUS_MS * 1000;
}

/* That input's serial, else 0. */
static uint32_t input_serial(const struct web_field *field) { return input_pending(field) ? field->input.serial : 0; }

void web_field_input(struct web_field *field, uint32_t serial, int tap, guint stir) {
    field->input.serial = serial;
    field->input.pending = 1;
    field->input.tap = tap;
    field->input.stir = stir;
    field->input.at_us = g_get_monotonic_time();
}

void web_field_stir_answered(struct web_field *field, guint n) {
    /* (The stir of the input or a later one: the page has drawn what the input did.) */
    if (field->input.pending && (gint)(n - field->input.stir) >= 0) field->input.pending = 0;
}

/* The field is over. */
static void leave(struct web_field *field) {
    if (!field->focused) return;
    field->focused = 0;
    send(field);
}

void web_field_navigated(struct web_field *field, int committed) {
    field->input.pending = 0;
    /* A load only started may never replace the page (a download refused, a navigation
       cancelled): its field stays until one does. */
    if (!committed) return;
    /* (WebKit may say nothing of a field whose document went away; the new one is at its top.) */
    field->webkit_focused = 0;
    field->scroll[0] = field->scroll[1] = 0;
    leave(field);
}

/* ---- the keyboard's place ---- */

/* The focused field (in a frame of the same origin, the field in it) scrolled into view above
   the keyboard once the page's height is `height` (0: now), with REVEAL_MARGIN below it; for a
   field taller than the view, its caret (`ct`, `cb`: the caret's top and bottom in the view). */
static const char *reveal_script =
    "(function(H,ct,cb,m){function go(){var d=document,e=d.activeElement;"
    "while(e&&(e.tagName==='IFRAME'||e.tagName==='FRAME')){try{if(!e.contentDocument)break;d=e.contentDocument;e=d.activeElement;}catch(x){break;}}"
    "if(!e||e===d.body||e===d.documentElement)return;var r=e.getBoundingClientRect();"
    "if(r.height<=innerHeight-2*m){try{e.scrollIntoView({block:'nearest',inline:'nearest'});}catch(x){}"
    "if(d===document){r=e.getBoundingClientRect();var o=r.bottom+m-innerHeight;if(o>0)scrollBy(0,Math.min(o,Math.max(r.top-m,0)));}}"
    "else if(cb>ct){if(cb+m>innerHeight)scrollBy(0,cb+m-innerHeight);else if(ct<m)scrollBy(0,ct-m);}}"
    "if(H<=0||innerHeight===H){go();return;}var done=false;function once(){if(done)return;done=true;removeEventListener('resize',once,true);go();}"
    "addEventListener('resize',once,true);setTimeout(once,500);})(%d,%.1f,%.1f,%d)";

void web_field_reveal(struct web_field *field, int height) {
    if (!field->focused || !field->webkit) return;
    char source[2048];
    double top = field->caret[1] - field->scroll[1];
    snprintf(source, sizeof source, reveal_script, height, top, top + field->caret[3], REVEAL_MARGIN);
    webkit_web_view_run_javascript_in_world(field->webkit, source, SCRIPT_WORLD, NULL, NULL, NULL);
}

/* (The keyboard's frame for the new pane follows.) */
void web_field_resized(struct web_field *field) {
    field->keyboard_top = -1;
    field->overlap = 0;
}

/* The dismiss key: the focused element blurred, as iPad's is (its focus ring goes; WebKit's
   focus-out turns text input off); in a frame of another origin, the frame. */
static const char *blur_script =
    "(function(){var d=document,e=d.activeElement;"
    "while(e&&(e.tagName==='IFRAME'||e.tagName==='FRAME')){try{if(!e.contentDocument)break;d=e.contentDocument;e=d.activeElement;}catch(x){break;}}"
    "if(e&&e!==d.body&&e!==d.documentElement&&e.blur)e.blur();})()";

/* How much of the pane the keyboard covers for the view: that of the keyboard this app raised
   while a field takes text, nothing while a script dialog or a sign-in shows (the keyboard is
   the alert's own field's, a prompt()'s, and the page, blocked, could not take a new height
   anyway: the view keeps its size until it closes). WEB_FIELD_RESIZE when it changed. */
static int place(struct web_field *field, const struct web_pane *pane, const struct web_band *band) {
    if (field->blocked) return 0;
    int overlap = 0;
    if (field->focused && field->keyboard_top >= 0 && field->keyboard_top < pane->css_h) {
        double most = pane->css_h - lround(web_band_top(band, pane)) - VIEW_MIN;
        overlap = (int)fmax(0, fmin(ceil(pane->css_h - field->keyboard_top), most));
    }
    if (overlap == field->overlap) return 0;
    if (web_debug) say("the keyboard covers %d of the pane's %d", overlap, pane->css_h);
    field->overlap = overlap;
    return WEB_FIELD_RESIZE;
}

int web_field_block(struct web_field *field, const struct web_pane *pane, const struct web_band *band, int blocked) {
    if (blocked == field->blocked) return 0;
    field->blocked = blocked;
    if (web_debug) say("the keyboard's frames %s for the view", blocked ? "ignored (a dialog shows)" : "followed again");
    return place(field, pane, band);
}

/* ---- the compositor's events ---- */

int web_field_event(struct web_field *field, const struct web_pane *pane, const struct web_band *band, const dc_event *e) {
    if (!field->context) return 0;
    switch (e->type) {
    case DC_TEXT_COMMIT:
        g_signal_emit_by_name(field->context, "committed", e->text_commit.text);
        return WEB_FIELD_STIR;
    case DC_TEXT_DELETE:
        /* (Characters, as GTK's input methods count them: the protocol's Unicode scalars.) */
        if (e->text_delete.before > 4096 || e->text_delete.after > 4096) return 0;
        g_signal_emit_by_name(field->context, "delete-surrounding", -(int)e->text_delete.before, (guint)(e->text_delete.before + e->text_delete.after));
        return WEB_FIELD_STIR;
    case DC_KEYBOARD_FRAME: {
        /* Only the keyboard this app raised: another app's goes when this one is touched. */
        const dc_rect *f = &e->keyboard_frame.frame;
        field->keyboard_top = e->keyboard_frame.local && f->height > 0 ? f->y : -1;
        return place(field, pane, band);
    }
    case DC_TEXT_INPUT_DISMISSED:
        field->input.pending = 0;
        if (field->webkit) webkit_web_view_run_javascript_in_world(field->webkit, blur_script, SCRIPT_WORLD, NULL, NULL, NULL);
        return WEB_FIELD_STIR;
    default:
        return 0;
    }
}

/* ---- WebKit's side ---- */

static gboolean filter_key_event(WebKitInputMethodContext *c, struct wpe_input_keyboard_event *key) {
    (void)c; (void)key;
    return FALSE;
}

static void focus_in(WebKitInputMethodContext *c) {
    struct web_field *field = field_of(c);
    field->webkit_focused = 1;
    if (field->refocus_pending) {
        /* The same field, its view focused again: its serial stays. */
        field->refocus_pending = 0;
    } else {
        /* A field newly focused (or another in the same turn: a Tab), by the input before it
           if the page had not drawn its answer yet, else by script. */
        uint32_t serial = input_serial(field);
        if (!field->focused || serial) field->serial = serial;
    }
    field->focused = 1;
    send(field);
}

static void focus_out(WebKitInputMethodContext *c) {
    struct web_field *field = field_of(c);
    /* The view's focus went, not the field's: it stays the field taking text (the keyboard
       comes back after a divider drag). */
    if (field->view_unfocused) return;
    /* (The text around the caret stays: WebKit says it again only when it changes.) */
    field->webkit_focused = 0;
    leave(field);
}

static gboolean refocus_check(gpointer data) {
    struct web_field *field = data;
    field->refocus_source = 0;
    if (field->refocus_pending) {
        field->refocus_pending = 0;
        field->webkit_focused = 0;
        leave(field);
    }
    return G_SOURCE_REMOVE;
}

void web_field_view_focus(struct web_field *field, int focused) {
    if (!focused) {
        field->view_unfocused = 1;
        return;
    }
    if (!field->view_unfocused) return;
    field->view_unfocused = 0;
    if (field->refocus_source) g_source_remove(field->refocus_source);
    field->refocus_source = 0;
    if (!field->focused) return;
    field->refocus_pending = 1;
    field->refocus_source = g_timeout_add(REFOCUS_MS, refocus_check, field);
}

static void cursor_area(WebKitInputMethodContext *c, int x, int y, int w, int h) {
    struct web_field *field = field_of(c);
    /* WebKit says it in the document's CSS px (the scroll position moves it into the view). */
    double caret[4] = { x, y, fmax(w, 0), fmax(h, 0) };
    if (!memcmp(caret, field->caret, sizeof caret)) return;
    memcpy(field->caret, caret, sizeof caret);
    if (field->focused) send(field);
}

static void surrounding(WebKitInputMethodContext *c, const gchar *text, guint length, guint cursor, guint selection) {
    (void)selection;
    struct web_field *field = field_of(c);
    /* The text before the caret (a byte index), its last 256 bytes from a character's start. */
    if (!text) return;
    size_t end = cursor < length ? cursor : length, start = end > 256 ? end - 256 : 0;
    while (start < end && ((unsigned char)text[start] & 0xC0) == 0x80) start++;
    char s[257];
    memcpy(s, text + start, end - start);
    s[end - start] = 0;
    if (web_debug) say("surrounding %u bytes, caret at %u: \"%s\"", length, cursor, s);
    if (!strcmp(s, field->surrounding)) return;
    strcpy(field->surrounding, s);
    if (field->focused) send(field);
}

static void reset(WebKitInputMethodContext *c) { (void)c; }

static void diptych_im_class_init(DiptychImClass *k) {
    WebKitInputMethodContextClass *c = WEBKIT_INPUT_METHOD_CONTEXT_CLASS(k);
    c->filter_key_event = filter_key_event;
    c->notify_focus_in = focus_in;
    c->notify_focus_out = focus_out;
    c->notify_cursor_area = cursor_area;
    c->notify_surrounding = surrounding;
    c->reset = reset;
}

static void diptych_im_init(DiptychIm *im) { im->field = NULL; }

static void on_purpose_or_hints(GObject *o, GParamSpec *p, gpointer data) {
    (void)o; (void)p;
    struct web_field *field = data;
    if (field->focused) send(field);
}

/* ---- the script: the focused element, its form, and taps on it ---- */

/* In diptych-web's own world, in every frame. When focus moves (a focusin the browser made, for
   the element that has the focus: a page's own focusin events, dispatched to any element, say
   nothing of the real field) it posts what WPE 2.38 does not say of the element: its inputmode (WebKit reads only `none`), a search field, its return key
   (its enterkeyhint, else search for a search field or a form with role=search, go for a field
   of a form that submits: one with a submit button, or a single field that takes text), and
   whether its form (the document's fields in no form, for one in none) has fields that take
   text before and after it in tab order, and the field's text before its caret (WebKit says it
   only later: the field before's must not stand for it meanwhile). Tab and Shift+Tab in such a field go to those fields
   (the keyboard's ‹ ›; Safari's Tab skips buttons and links too), unless the page took the key.
   A tap ending on the focused field (or its label) is posted: the keyboard comes back for it.
   And the top document's scroll position (at most once a frame), which WebKit's caret, in the
   document's coordinates, is moved by. */
const char *text_input_script =
    "(function(){if(window.__diptychField)return;window.__diptychField=1;"
    "var post=function(m){try{window.webkit.messageHandlers.diptychField.postMessage(m);}catch(x){}};"
    "var TEXT={text:1,search:1,url:1,tel:1,email:1,password:1,number:1};"
    "function isText(e){if(!e||e.nodeType!==1)return false;if(e.tagName==='TEXTAREA')return true;"
    "return e.tagName==='INPUT'&&!!TEXT[e.type];}"
    "function takes(e){return isText(e)&&!e.disabled&&!e.readOnly&&e.tabIndex>=0&&e.getClientRects().length>0&&getComputedStyle(e).visibility!=='hidden';}"
    "function fields(e){var all=e.form?e.form.elements:Array.prototype.filter.call(document.querySelectorAll('input,textarea'),function(x){return !x.form;});"
    "var a=[];for(var i=0;i<all.length;i++)if(all[i]===e||takes(all[i]))a.push([all[i],i]);"
    "a.sort(function(x,y){var p=x[0].tabIndex,q=y[0].tabIndex;if(p===q)return x[1]-y[1];if(p===0)return 1;if(q===0)return -1;return p-q;});"
    "return a.map(function(x){return x[0];});}"
    "function isSubmit(x){var t=(x.getAttribute('type')||'').toLowerCase();"
    "return (x.tagName==='BUTTON'&&(t===''||t==='submit'))||(x.tagName==='INPUT'&&(t==='submit'||t==='image'));}"
    "var HINT={enter:'',done:'done',go:'go',next:'next',previous:'',search:'search',send:'send'};"
    "function ret(e,m){var h=(e.getAttribute('enterkeyhint')||'').toLowerCase();if(HINT.hasOwnProperty(h))return HINT[h];"
    "if(e.tagName!=='INPUT')return '';var f=e.form;"
    "if(e.type==='search'||m==='search'||(e.closest&&e.closest('[role=search],search')))return 'search';"
    "if(!f)return '';var n=0;for(var i=0;i<f.elements.length;i++){var x=f.elements[i];if(isSubmit(x))return 'go';if(x.tagName==='INPUT'&&isText(x))n++;}"
    "return n===1?'go':'';}"
    "document.addEventListener('focusin',function(ev){var t=ev.target;if(!ev.isTrusted||t!==document.activeElement)return;"
    "if(!t||!t.getAttribute||t.tagName==='IFRAME'||t.tagName==='FRAME')return;"
    "var m=(t.getAttribute('inputmode')||'').toLowerCase(),prev=0,next=0;"
    "if(isText(t)){var a=fields(t),i=a.indexOf(t);prev=i>0?1:0;next=i>=0&&i<a.length-1?1:0;}"
    "var before=null;if(isText(t)&&t.type!=='password'){var v=String(t.value||''),c=null;try{c=t.selectionStart;}catch(x){}before=typeof c==='number'?v.slice(0,c):v;}"
    "post({kind:'focus',text:isText(t)||t.isContentEditable?1:0,before:before,search:(t.type==='search'||m==='search')?1:0,ret:ret(t,m),mode:m,prev:prev,next:next});},true);"
    "window.addEventListener('keydown',function(ev){if(!ev.isTrusted||ev.defaultPrevented||ev.key!=='Tab'||ev.ctrlKey||ev.altKey||ev.metaKey)return;"
    "var e=document.activeElement;if(!isText(e))return;var a=fields(e),i=a.indexOf(e),t=i<0?null:a[i+(ev.shiftKey?-1:1)];"
    "if(!t)return;ev.preventDefault();t.focus();},false);"
    "function tap(ev){if(!ev.isTrusted)return;var a=document.activeElement,t=ev.target;"
    "if(!a||a===document.body||!(isText(a)||a.isContentEditable))return;"
    "if(a===t||(a.contains&&t&&a.contains(t))||(t&&t.control===a))post({kind:'tap'});}"
    "window.addEventListener('touchend',tap,true);window.addEventListener('mouseup',tap,true);"
    "if(window.top===window){var sx=0,sy=0,due=false;addEventListener('scroll',function(){if(due)return;due=true;requestAnimationFrame(function(){due=false;"
    "if(scrollX===sx&&scrollY===sy)return;sx=scrollX;sy=scrollY;post({kind:'scroll',x:sx,y:sy});});},true);}})();";

static char *string_property(JSCValue *v, const char *name) {
    JSCValue *p = jsc_value_object_get_property(v, name);
    char *s = jsc_value_is_string(p) ? jsc_value_to_string(p) : NULL;
    g_object_unref(p);
    return s;
}

static int int_property(JSCValue *v, const char *name) {
    JSCValue *p = jsc_value_object_get_property(v, name);
    int n = jsc_value_is_number(p) ? jsc_value_to_int32(p) : 0;
    g_object_unref(p);
    return n;
}

/* What the focused element says of its keyboard: sent if a field takes text now. WebKit says
   nothing when the focus goes from one field that takes text to another (a tap on another
   field): the input before it is the new field's. */
static void focus_message(struct web_field *field, JSCValue *v) {
    char *ret = string_property(v, "ret"), *m = string_property(v, "mode");
    static const struct { const char *name; int purpose; } modes[] = {
        {"text", DC_PURPOSE_TEXT}, {"numeric", DC_PURPOSE_DIGITS}, {"decimal", DC_PURPOSE_NUMBER}, {"tel", DC_PURPOSE_PHONE},
        {"email", DC_PURPOSE_EMAIL}, {"url", DC_PURPOSE_URL}, {"search", DC_PURPOSE_SEARCH},
    };
    int purpose = -1;
    for (size_t i = 0; m && i < G_N_ELEMENTS(modes); i++) if (!strcmp(m, modes[i].name)) purpose = modes[i].purpose;
    int none = m && !strcmp(m, "none");
    static const struct { const char *name; int key; } keys[] = {
        {"go", DC_RETURN_GO}, {"search", DC_RETURN_SEARCH}, {"send", DC_RETURN_SEND}, {"next", DC_RETURN_NEXT}, {"done", DC_RETURN_DONE},
    };
    int key = DC_RETURN_DEFAULT;
    for (size_t i = 0; ret && i < G_N_ELEMENTS(keys); i++) if (!strcmp(ret, keys[i].name)) key = keys[i].key;
    int is_search = int_property(v, "search") == 1;
    uint32_t hints = (int_property(v, "prev") == 1 ? DC_HINT_HAS_PREVIOUS : 0) | (int_property(v, "next") == 1 ? DC_HINT_HAS_NEXT : 0);
    int changed = is_search != field->search || key != field->return_key || none != field->no_keyboard || purpose != field->mode_purpose
        || hints != field->form_hints;
    char *before = string_property(v, "before");
    if (before) {
        /* (Its last 256 bytes, from a character's start.) */
        size_t n = strlen(before), start = n > 256 ? n - 256 : 0;
        while (start < n && ((unsigned char)before[start] & 0xC0) == 0x80) start++;
        if (strcmp(before + start, field->surrounding)) {
            strcpy(field->surrounding, before + start);
            changed = 1;
        }
        g_free(before);
    }
    if (int_property(v, "text") == 1 && field->webkit_focused && input_pending(field) && field->serial != field->input.serial) {
        field->serial = field->input.serial;
        field->focused = 1;
        changed = 1;
    }
    field->search = is_search;
    field->return_key = key;
    field->no_keyboard = none;
    field->mode_purpose = purpose;
    field->form_hints = hints;
    g_free(ret);
    g_free(m);
    if (changed && field->focused) send(field);
    /* Focus moved with the keyboard up (‹ ›, a script): the new field above it. */
    if (field->focused && field->overlap > 0) web_field_reveal(field, 0);
}

/* A tap ended on the field that has the focus already: WebKit says nothing new, the field takes
   the tap (the keyboard comes back for it). */
static void tap_message(struct web_field *field) {
    if (!input_pending(field) || !field->input.tap || !field->webkit_focused || (field->focused && field->serial == field->input.serial)) return;
    field->serial = field->input.serial;
    field->focused = 1;
    if (web_debug) say("a tap on the focused field");
    send(field);
}

void on_field_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager;
    struct web_field *field = data;
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    if (!jsc_value_is_object(v)) return;
    char *kind = string_property(v, "kind");
    if (kind && !strcmp(kind, "scroll")) {
        JSCValue *x = jsc_value_object_get_property(v, "x"), *y = jsc_value_object_get_property(v, "y");
        double sx = jsc_value_to_double(x), sy = jsc_value_to_double(y);
        g_object_unref(x);
        g_object_unref(y);
        if (isfinite(sx) && isfinite(sy) && (sx != field->scroll[0] || sy != field->scroll[1])) {
            field->scroll[0] = sx;
            field->scroll[1] = sy;
            if (field->focused) send(field);
        }
    }
    if (kind && !strcmp(kind, "focus")) focus_message(field, v);
    else if (kind && !strcmp(kind, "tap")) tap_message(field);
    g_free(kind);
}

void web_field_attach(struct web_field *field, WebKitWebView *webkit) {
    field->webkit = webkit;
    field->context = g_object_new(diptych_im_get_type(), NULL);
    ((DiptychIm *)field->context)->field = field;
    g_signal_connect(field->context, "notify::input-purpose", G_CALLBACK(on_purpose_or_hints), field);
    g_signal_connect(field->context, "notify::input-hints", G_CALLBACK(on_purpose_or_hints), field);
    webkit_web_view_set_input_method_context(webkit, field->context);
}
