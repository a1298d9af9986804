/* SPDX-License-Identifier: MIT */
/* Text input (field.c): WebKit's input-method context as the compositor's textInput (the focused
   field's purpose, hints, return key, caret and the text before it; its typing back into the
   page), the input after which a field was focused (protocol 9's serial), the form around it (‹ ›
   and the return key, read by a script), the keyboard's dismiss key (the field blurred), and
   how much of the pane the keyboard this app raised covers (the view ends at its top: the app
   resizes it).
   Owns: the input-method context, the focused field's state, the serial it was enabled with,
   the last input event's serial not yet used, the keyboard's top and overlap, the view's focus
   gone and the timer that waits for WebKit to say the field is focused again. */
#ifndef DIPTYCH_WEB_FIELD_H
#define DIPTYCH_WEB_FIELD_H

#include "band.h"
#include "common.h"
#include "pane.h"

struct web_field {
    dc_connection *dc;  /* borrowed (the field's state is sent on it) */
    WebKitWebView *webkit;  /* borrowed (the blur and the reveal are run in it) */
    /* The app sends the state (web_field_send: it has the pane and the band). */
    struct web_hook send;
    WebKitInputMethodContext *context;
    /* A field takes text, as the compositor is told (`focused`) and as WebKit last said
       (`webkit_focused`: a navigation ends the first at once, WebKit may say nothing). */
    int focused, webkit_focused;
    /* From the script: the purpose its inputmode asks for (-1: none), a search field, its
       return key, inputmode=none, and the form's neighbours (DC_HINT_HAS_PREVIOUS, _NEXT). */
    int mode_purpose, search, return_key, no_keyboard;
    uint32_t form_hints;
    /* The caret in the document's CSS px (as WebKit says it), and the document's scroll position
       (the script says it): the caret in the view is the one less the other. */
    double caret[4], scroll[2];
    char surrounding[257];
    /* The serial the field's text input was enabled with (the input after which it was
       focused; 0: by script), sent with each state while it lasts. */
    uint32_t serial;
    /* The last input event forwarded to the page that may focus a field (a touch or pen lifted,
       a left button released, a key pressed), when (monotonic µs), until the page drew its
       answer (stir `stir` came back), a second passed (field.c's INPUT_FOCUS_MS), a navigation
       or the dismiss key: a focus before is the input's. */
    struct { uint32_t serial; int pending, tap; guint stir; gint64 at_us; } input;
    /* The state is sent once the loop is free (what WebKit and the script say of one focus change
       as one state: a focus-out and a focus-in in the same turn keep the keyboard up). */
    guint send_source;
    /* The keyboard this app raised: its top in the pane's points (-1 while none shows), and the
       pane's points below it (the view ends at its top). */
    double keyboard_top;
    int overlap;
    /* A script dialog or a sign-in shows: the keyboard's frames are not the field's (the view
       keeps its overlap until it closes, then follows the latest frame). */
    int blocked;
    /* The view lost the window's focus (the app resigned active: a divider drag, a rotation):
       WebKit's focus-out then is the view's, not the field's. When the focus comes back, WebKit
       says focus-in again for a field still focused within REFOCUS_MS, or the field is over. */
    int view_unfocused, refocus_pending;
    guint refocus_source;
};

#define WEB_FIELD_INIT { .keyboard_top = -1, .mode_purpose = -1 }

/* The context given to the view. */
void web_field_attach(struct web_field *field, WebKitWebView *webkit);
/* What the focused element and its form say of its keyboard, and taps on the focused field
   (a script in diptych-web's own world), and its messages' handler (`field`: the struct
   web_field). */
extern const char *text_input_script;
void on_field_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer field);

/* The field's state to the compositor. */
void web_field_send(struct web_field *field, const struct web_pane *pane, const struct web_band *band);

/* An input event went to the page: `serial` (a lifted touch or pen, a released button: `tap`;
   else a pressed key), whose answer the page draws by stir `stir`. A field focused before the
   page has drawn it is the input's. */
void web_field_input(struct web_field *field, uint32_t serial, int tap, guint stir);
/* The page answered stir `n`: an input before it no longer focuses a field. */
void web_field_stir_answered(struct web_field *field, guint n);
/* The state waiting for the loop to be free sent now (a round trip is answered after it). */
void web_field_flush(struct web_field *field);
/* The page navigates: a load started (`committed` 0) forgets the input before; a load committed
   (its document replaced) ends the field too (one that never commits, a download refused or a
   navigation cancelled, leaves the field as it was). */
void web_field_navigated(struct web_field *field, int committed);
/* The view's height changed to `height` (CSS px) with the keyboard showing: the focused field
   scrolled into view once the page has it (0: now). */
void web_field_reveal(struct web_field *field, int height);

/* The pane changed size: the keyboard's frame for it follows. */
void web_field_resized(struct web_field *field);
/* The compositor's textCommit, textDelete, keyboardFrame and textInputDismissed: what the app is
   to do after. */
enum { WEB_FIELD_STIR = 1, WEB_FIELD_RESIZE = 2 };
int web_field_event(struct web_field *field, const struct web_pane *pane, const struct web_band *band, const dc_event *e);
/* A script dialog or an HTTP sign-in shows (`blocked`) or no longer does: the keyboard's frames
   are ignored for the view meanwhile, and looked at again once it closes. What the app is to
   do after (WEB_FIELD_RESIZE). */
int web_field_block(struct web_field *field, const struct web_pane *pane, const struct web_band *band, int blocked);
/* The view gained or lost the window's focus (before WebKit hears it). */
void web_field_view_focus(struct web_field *field, int focused);

#endif
