/* SPDX-License-Identifier: MIT */
/* Text input (field.c): WebKit's input-method context as the compositor's textInput (the focused
   field's purpose, hints, return key, caret and the text before it; its typing back into the
   page), and the pan that keeps the caret above the on-screen keyboard this app raised.
   Owns: the input-method context, the focused field's state, the keyboard's top, the pan shown
   and wanted (and the page's last frame as WebKit drew it, while panned), the view's focus gone
   and the timer that waits for WebKit to say the field is focused again. */
#ifndef DIPTYCH_WEB_FIELD_H
#define DIPTYCH_WEB_FIELD_H

#include "band.h"
#include "common.h"
#include "pane.h"

struct web_field {
    dc_connection *dc;  /* borrowed (the field's state is sent on it) */
    /* WebKit's word through the context, which the app finishes with the pane and the band:
       `changed` (the pan brought up to date, then the state sent) and `send` (the state sent). */
    struct web_hook changed, send;
    WebKitInputMethodContext *context;
    int focused;
    /* From the script: the purpose its inputmode asks for (-1: none), a search field, its
       return key, inputmode=none. */
    int mode_purpose, search, return_key, no_keyboard;
    /* The caret in the page's CSS px (as WebKit lays it out, before the pan). */
    double caret[4];
    char surrounding[257];
    /* The keyboard this app raised: its top in the pane's points, or -1 while none shows. */
    double keyboard_top;
    /* The pan shown (CSS px: the frames on screen, touches and the caret move with it) and the
       pan wanted; while either is not 0, the page's last frame as WebKit drew it. */
    int pan, wanted;
    uint32_t *unpanned;
    int unpanned_w, unpanned_h;
    /* The pan wanted could not be shown yet (the view resizing, no buffer free): again with the
       next chance (web_field_draw_wanted), unless WebKit's next frame brings it first. */
    int repan;
    /* The view lost the window's focus (the app resigned active: a divider drag, a rotation):
       WebKit's focus-out then is the view's, not the field's. When the focus comes back, WebKit
       says focus-in again for a field still focused within REFOCUS_MS, or the field is over. */
    int view_unfocused, refocus_pending;
    guint refocus_source;
};

#define WEB_FIELD_INIT { .keyboard_top = -1, .mode_purpose = -1 }

/* The context given to the view. */
void web_field_attach(struct web_field *field, WebKitWebView *webkit);
/* What the focused element says of its keyboard (a script in diptych-web's own world), and its
   messages' handler (`field`: the struct web_field). */
extern const char *text_input_script;
void on_field_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer field);

/* The field's state to the compositor. */
void web_field_send(struct web_field *field, const struct web_pane *pane, const struct web_band *band);
/* The least pan that shows the caret above the keyboard: 1 when the pan wanted is to be shown
   (web_field_draw_wanted). */
int web_field_update_pan(struct web_field *field, const struct web_pane *pane, const struct web_band *band);
/* The page's last frame drawn with the pan wanted, in a buffer to commit as the live frame
   (then web_field_wanted_shown); NULL when there is nothing to show, or not now (`resizing`, no
   buffer free: repan). `live`: the live frame on screen. */
dc_buffer *web_field_draw_wanted(struct web_field *field, const struct web_pane *pane, const struct web_band *band, const dc_buffer *live,
                                 int resizing);
void web_field_wanted_shown(struct web_field *field, const struct web_pane *pane, const struct web_band *band);
/* A frame of the live size from WebKit: while a pan is wanted, kept whole and drawn moved up
   into `b` (returns 1); else left to the plain copy (returns 0). */
int web_field_copy_frame(struct web_field *field, const struct web_pane *pane, const struct web_band *band, struct wl_shm_buffer *shm,
                         dc_buffer *b);
/* The pane changed size: the pan ends. */
void web_field_resized(struct web_field *field, const struct web_pane *pane, const struct web_band *band);
/* The compositor's textCommit, textDelete and keyboardFrame: what the app is to do after. */
enum { WEB_FIELD_STIR = 1, WEB_FIELD_SHOW_PAN = 2 };
int web_field_event(struct web_field *field, const struct web_pane *pane, const struct web_band *band, const dc_event *e);
/* The view gained or lost the window's focus (before WebKit hears it). */
void web_field_view_focus(struct web_field *field, int focused);

#endif
