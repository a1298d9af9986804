/* SPDX-License-Identifier: MIT */
/* diptych-web's text input: WebKit's input-method context as the compositor's `textInput`, its
   typing back into the page, and the pan that keeps the caret above the on-screen keyboard.

   WebKit tells the context when an editable element gains or loses focus, its purpose and hints,
   the caret's rectangle and the text around it; each becomes the field's state, sent to the
   compositor. The keyboard's text is the context's `committed` signal, a deletion its
   `delete-surrounding`; the keyboard's return and delete come as keys, as hardware keys do, and
   the context lets every key through (filter_key_event returns FALSE), so hardware typing is
   untouched. WPE 2.38 has no `search` purpose and nothing for `enterkeyhint`: a script in
   diptych-web's own world reads those of the focused element.

   The pan (Safari's way): while the keyboard this app raised covers the caret, the page's frames
   are shown moved up by the least that brings the caret above it; touches, the pen and the
   pointer move with them, and the caret is told in the pane's points as shown. (field.h) */
#include "field.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room kept between the caret and the keyboard (CSS px): a field's box around it shows too. */
#define CARET_MARGIN 24
#define REFOCUS_MS 300

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
    uint32_t hints = hints_of(webkit_input_method_context_get_input_hints(c), purpose);
    if (field->no_keyboard) hints |= DC_HINT_NO_KEYBOARD;
    dc_text_state s = {
        .enabled = field->focused, .purpose = purpose, .hints = hints, .return_key = field->return_key,
        .caret_x = field->caret[0], .caret_y = field->caret[1] - field->pan + web_band_top(band, pane),
        .caret_width = field->caret[2], .caret_height = field->caret[3],
        /* A password's text never leaves the page. */
        .surrounding = purpose == DC_PURPOSE_PASSWORD ? "" : field->surrounding,
    };
    if (web_debug) say("text input %s purpose %d hints 0x%x caret %g,%g %gx%g pan %d", s.enabled ? "on" : "off", purpose, hints,
                       s.caret_x, s.caret_y, s.caret_width, s.caret_height, field->pan);
    dc_text_input(field->dc, &s);
}

/* ---- the pan ---- */

/* Keeps a copy of a whole w x h frame (the page as WebKit drew it). */
static int keep_unpanned(struct web_field *field, int w, int h) {
    if (field->unpanned && field->unpanned_w == w && field->unpanned_h == h) return 1;
    free(field->unpanned);
    field->unpanned = malloc((size_t)w * (size_t)h * 4);
    field->unpanned_w = field->unpanned ? w : 0;
    field->unpanned_h = field->unpanned ? h : 0;
    return field->unpanned != NULL;
}

static void drop_unpanned(struct web_field *field) {
    free(field->unpanned);
    field->unpanned = NULL;
    field->unpanned_w = field->unpanned_h = 0;
}

/* The pan shown changed: the caret the compositor knows moved with it. */
static void pan_shown(struct web_field *field, const struct web_pane *pane, const struct web_band *band, int pan) {
    if (pan == field->pan) return;
    field->pan = pan;
    if (web_debug) say("pan %d", pan);
    web_field_send(field, pane, band);
}

/* The page's last frame with the pan wanted, if a buffer is free and the view is not resizing
   (else at the next chance, or with WebKit's next frame). */
dc_buffer *web_field_draw_wanted(struct web_field *field, const struct web_pane *pane, const struct web_band *band, const dc_buffer *live,
                                 int resizing) {
    field->repan = 0;
    if (field->wanted == field->pan) return NULL;
    if (resizing) { field->repan = 1; return NULL; }
    if (!field->unpanned) {
        /* No pan shown yet: the frame on screen is the page as WebKit drew it. (Else, or none
           of this size, WebKit's next frame brings it.) */
        int rows = web_band_rows(band, pane), h = pane->px_h - rows;
        if (field->pan || !live || live->width != pane->px_w || live->height != pane->px_h || h <= 0 || !keep_unpanned(field, pane->px_w, h)) return NULL;
        for (int y = 0; y < h; y++)
            memcpy(field->unpanned + (size_t)y * (size_t)pane->px_w, (const uint8_t *)live->pixels + (size_t)(y + rows) * (size_t)live->stride,
                   (size_t)pane->px_w * 4);
    }
    if (field->unpanned_w != pane->px_w || field->unpanned_h != pane->px_h - web_band_rows(band, pane)) return NULL;
    dc_buffer *b = dc_buffer_get(field->dc, pane->px_w, pane->px_h);
    if (!b) { field->repan = 1; return NULL; }
    web_band_place(band, pane, b, (const uint8_t *)field->unpanned, (size_t)pane->px_w * 4, field->unpanned_w, field->unpanned_h,
                   (int)lround(field->wanted * pane->scale));
    return b;
}

void web_field_wanted_shown(struct web_field *field, const struct web_pane *pane, const struct web_band *band) {
    if (!field->wanted) drop_unpanned(field);
    pan_shown(field, pane, band, field->wanted);
}

/* (Never past the keyboard's overlap of the pane, nor the caret off the pane's top.) */
int web_field_update_pan(struct web_field *field, const struct web_pane *pane, const struct web_band *band) {
    int pan = 0;
    if (field->focused && field->keyboard_top >= 0) {
        /* (In the view's coordinates: the pane's less the band above it.) */
        double top = field->keyboard_top - web_band_top(band, pane), bottom = field->caret[1] + field->caret[3] + CARET_MARGIN;
        if (bottom > top) {
            double most = fmin(pane->css_h - field->keyboard_top, field->caret[1]);
            pan = (int)ceil(fmin(bottom - top, fmax(most, 0)));
        }
    }
    if (pan == field->wanted && pan == field->pan) return 0;
    field->wanted = pan;
    return 1;
}

int web_field_copy_frame(struct web_field *field, const struct web_pane *pane, const struct web_band *band, struct wl_shm_buffer *shm,
                         dc_buffer *b) {
    field->repan = 0;
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm), stride = wl_shm_buffer_get_stride(shm);
    if (!field->wanted || !keep_unpanned(field, w, h)) {
        drop_unpanned(field);
        pan_shown(field, pane, band, 0);
        return 0;
    }
    gint64 t0 = g_get_monotonic_time();
    wl_shm_buffer_begin_access(shm);
    const uint8_t *src = wl_shm_buffer_get_data(shm);
    for (int y = 0; y < h; y++) memcpy(field->unpanned + (size_t)y * (size_t)w, src + (size_t)y * (size_t)stride, (size_t)w * 4);
    wl_shm_buffer_end_access(shm);
    web_band_place(band, pane, b, (const uint8_t *)field->unpanned, (size_t)w * 4, w, h, (int)lround(field->wanted * pane->scale));
    log_frame(w, h, (double)(g_get_monotonic_time() - t0) / 1000.0);
    pan_shown(field, pane, band, field->wanted);
    return 1;
}

/* (The keyboard's frame for the new pane follows, and WebKit's frame of the new size.) */
void web_field_resized(struct web_field *field, const struct web_pane *pane, const struct web_band *band) {
    drop_unpanned(field);
    field->wanted = 0;
    field->repan = 0;
    field->keyboard_top = -1;
    pan_shown(field, pane, band, 0);
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
        const dc_rect *f = &e->keyboard_frame.frame;
        field->keyboard_top = e->keyboard_frame.local && f->height > 0 ? f->y : -1;
        return web_field_update_pan(field, pane, band) ? WEB_FIELD_SHOW_PAN : 0;
    }
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
    field->focused = 1;
    field->refocus_pending = 0;
    web_hook_call(&field->changed);
}

static void focus_out(WebKitInputMethodContext *c) {
    struct web_field *field = field_of(c);
    /* The view's focus went, not the field's: it stays the field taking text (the keyboard
       comes back after a divider drag). */
    if (field->view_unfocused) return;
    /* (The text around the caret stays: WebKit says it again only when it changes.) */
    field->focused = 0;
    web_hook_call(&field->changed);
}

static gboolean refocus_check(gpointer data) {
    struct web_field *field = data;
    field->refocus_source = 0;
    if (field->refocus_pending) {
        field->refocus_pending = 0;
        field->focused = 0;
        web_hook_call(&field->changed);
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
    /* WebKit says it in the view's CSS px, the pane's points. */
    double caret[4] = { x, y, fmax(w, 0), fmax(h, 0) };
    if (!memcmp(caret, field->caret, sizeof caret)) return;
    memcpy(field->caret, caret, sizeof caret);
    if (field->focused) web_hook_call(&field->changed);
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
    if (!strcmp(s, field->surrounding)) return;
    strcpy(field->surrounding, s);
    if (field->focused) web_hook_call(&field->send);
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
    if (field->focused) web_hook_call(&field->send);
}

/* What WPE 2.38 does not say of the focused element: its inputmode (WebKit reads only `none`),
   a search field, its return key (posted from diptych-web's own world whenever focus moves). */
const char *text_input_script =
    "document.addEventListener('focusin',function(e){var t=e.target;if(!t||!t.getAttribute||t.tagName==='IFRAME'||t.tagName==='FRAME')return;"
    "var h=(t.getAttribute('enterkeyhint')||'').toLowerCase(),m=(t.getAttribute('inputmode')||'').toLowerCase();"
    "window.webkit.messageHandlers.diptychField.postMessage({search:(t.type==='search'||m==='search')?1:0,"
    "hint:h,mode:m});},true);";

void on_field_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager;
    struct web_field *field = data;
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    if (!jsc_value_is_object(v)) return;
    JSCValue *search = jsc_value_object_get_property(v, "search"), *hint = jsc_value_object_get_property(v, "hint"),
             *mode = jsc_value_object_get_property(v, "mode");
    char *h = jsc_value_to_string(hint), *m = jsc_value_to_string(mode);
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
    for (size_t i = 0; h && i < G_N_ELEMENTS(keys); i++) if (!strcmp(h, keys[i].name)) key = keys[i].key;
    int is_search = jsc_value_to_int32(search) == 1;
    /* A search field's return key says "search", as Safari's does. */
    if (is_search && key == DC_RETURN_DEFAULT) key = DC_RETURN_SEARCH;
    int changed = is_search != field->search || key != field->return_key || none != field->no_keyboard || purpose != field->mode_purpose;
    field->search = is_search;
    field->return_key = key;
    field->no_keyboard = none;
    field->mode_purpose = purpose;
    g_free(h);
    g_free(m);
    g_object_unref(search); g_object_unref(hint); g_object_unref(mode);
    if (changed && field->focused) web_hook_call(&field->send);
}

void web_field_attach(struct web_field *field, WebKitWebView *webkit) {
    field->context = g_object_new(diptych_im_get_type(), NULL);
    ((DiptychIm *)field->context)->field = field;
    g_signal_connect(field->context, "notify::input-purpose", G_CALLBACK(on_purpose_or_hints), field);
    g_signal_connect(field->context, "notify::input-hints", G_CALLBACK(on_purpose_or_hints), field);
    webkit_web_view_set_input_method_context(webkit, field->context);
}
