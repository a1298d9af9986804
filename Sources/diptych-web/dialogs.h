/* SPDX-License-Identifier: MIT */
/* A page's menus and dialogs shown by the compositor (dialogs.c): a tapped <select> as a
   popover, alert(), confirm() and prompt() and an HTTP sign-in as alerts, one at a time, with
   a flood rule (three dialogs in 10 s, then their defaults until the page navigates).
   Owns: what shows (the option menu, script dialog or sign-in request, and its id), the flood
   rule's count and origin, and the sign-in WebKit dropped (to be asked again). */
#ifndef DIPTYCH_WEB_DIALOGS_H
#define DIPTYCH_WEB_DIALOGS_H

#include "common.h"

struct web_dialogs {
    dc_connection *dc;  /* borrowed (menus and alerts are presented on it) */
    /* WebKit cancelled the sign-in showing: the page is to be stirred (the app has the view). */
    struct web_hook stir;
    int kind;  /* NONE, MENU, DIALOG or SIGN_IN (dialogs.c) */
    uint32_t id, next_id;
    WebKitOptionMenu *menu;
    WebKitWebView *menu_view;  /* the menu's page (its <select> blurred after) */
    WebKitScriptDialog *dialog;
    WebKitAuthenticationRequest *auth;
    gulong menu_close_handler;
    gint64 recent[3];  /* when the last three dialogs showed (µs) */
    char *origin;      /* whose they were (the page's origin then) */
    int silenced;      /* the flood rule holds until the page navigates */
    int said;          /* the flood rule was said for this origin */
    int ask_again;     /* WebKit dropped a sign-in it had asked for: load the page again */
    int asked_again;   /* how often since the last sign-in (at most SIGN_IN_RETRIES) */
};

#define WEB_DIALOGS_INIT { .next_id = 1 }

/* WebKit's show-option-menu (of the page in `webkit`): the menu presented, anchored at `rect`
   (the view's CSS px) moved down by the band's `band_top`. 1: it shows (the page is to be
   stirred). Once answered (or dismissed) the <select> is left unfocused, as iPad leaves it. */
int web_dialogs_option_menu(struct web_dialogs *dialogs, WebKitWebView *webkit, WebKitOptionMenu *menu, const WebKitRectangle *rect,
                            double band_top);
/* WebKit's script-dialog, of the page in `webkit`: 1 when an alert now shows for it (a blank
   pane under it, if nothing was drawn yet). */
int web_dialogs_script_dialog(struct web_dialogs *dialogs, WebKitWebView *webkit, WebKitScriptDialog *dialog);
/* WebKit's authenticate: -1 not handled (WebKit cancels it), 0 handled, 1 handled and a sign-in
   now shows (a blank pane under it). */
int web_dialogs_authenticate(struct web_dialogs *dialogs, WebKitWebView *webkit, WebKitAuthenticationRequest *request);
/* The compositor's menuChosen, alertAnswered, dismissed and refused: 1 when the page is to be
   stirred (its dialog answered). */
int web_dialogs_event(struct web_dialogs *dialogs, const dc_event *e);
/* The page navigates (to `uri`): the flood rule's hold ends, a menu goes. */
void web_dialogs_navigated(struct web_dialogs *dialogs, const char *uri);
/* A load finished without the sign-in WebKit dropped: 1 when the page is to be loaded again. */
int web_dialogs_sign_in_again(struct web_dialogs *dialogs);
/* Whether a dialog blocks the page while it waits for the user (an alert, a prompt, a sign-in). */
int web_dialogs_showing(const struct web_dialogs *dialogs);

#endif
