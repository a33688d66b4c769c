/**
 * Known-answer vectors for the messenger's cryptography, written by
 * scripts/messenger-known-answers.py: an independent implementation (Python `cryptography`,
 * RFC 9180 from the RFC) of docs/messenger-crypto.md, checked there against RFC 9180 A.3.1 and A.3.3.
 * Test data only: do not edit by hand, and do not compute anything here from src/lib/crypto.
 */
export const KAT = {
  conversationId: '0190f3c2-0000-7000-8000-00000000c0c1',
  alice: {
    id: '0190f3c2-0000-7000-8000-00000000a11c',
    version: 2,
    exported: {
      agreement:
        'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+CqvM+V3l4mqJDeygNEvDyTd9Y/lRei4tSgoRCXV1XihRANCAASFfcMt5u97O+dT8G6PnF6Im7/3x1mxnwbjtgMmK+YSNbIkRjDCRlgT3pOaBLhaLOs4ojtBd2iQqHHjpdFuL+K0',
      signing:
        'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgYTiytd4/VPGLmCPwU8Ck4Gt9Bh9OkH3a+dnV2MvCAVmhRANCAARNiR5cvwpW/JWRDO+ujNAWvNrWbxpI3YvRDN6kV5I8XzXfb3rOG1EJO8AGfzpftBSnb9gO2Yfw3FUTJiYh4jeb',
    },
    publicKeys: {
      agreementKey: 'BIV9wy3m73s751Pwbo+cXoibv/fHWbGfBuO2AyYr5hI1siRGMMJGWBPek5oEuFos6ziiO0F3aJCoceOl0W4v4rQ=',
      signingKey: 'BE2JHly/Clb8lZEM766M0Ba82tZvGkjdi9EM3qRXkjxfNd9ves4bUQk7wAZ/Ol+0FKdv2A7Zh/DcVRMmJiHiN5s=',
    },
    fingerprint: '2ec76bf824fdaba20955556553383b1f',
  },
  bob: {
    id: '0190f3c2-0000-7000-8000-000000000b0b',
    version: 3,
    exported: {
      agreement:
        'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg9H4jjNT95TdFlOctHR1+jv40uRh3NYg9q6EjhrQVLFWhRANCAAQzmbXy0WFb6wtwHdZSSNvapcKpGB01H4U6/FPcNAlfRY4BowvKfrpmUkeceA9eN6N407CXrmpoyfQOaJG8Aw3j',
      signing:
        'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgmax2vIGUjZwrUhjfDZqdQbXqlSxN/9gpsQw1fSJX1eShRANCAATvoG65PzC8813wcHQv5Pd+8WV2X6IzojSjj7lNE6sfYzaYQdh7pqlHW1GE3bw1Yeaiov5q1A1Shrbj7/wLTzvu',
    },
    publicKeys: {
      agreementKey: 'BDOZtfLRYVvrC3Ad1lJI29qlwqkYHTUfhTr8U9w0CV9FjgGjC8p+umZSR5x4D143o3jTsJeuamjJ9A5okbwDDeM=',
      signingKey: 'BO+gbrk/MLzzXfBwdC/k937xZXZfojOiNKOPuU0Tqx9jNphB2HumqUdbUYTdvDVh5qKi/mrUDVKGtuPv/AtPO+4=',
    },
    fingerprint: '4c7666a52483585a19e59ed6651bfb97',
  },
  ephemeral: {
    pkcs8:
      'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+LMn36tTRfuq+4k/DT4ly6q8WyB3hnZfZ57IhbB/53ChRANCAAQugxe0/J3Q+Zy7uCmx/GFoRNFv7CJkltiMdBMV/Osl7qwEumiQhNu1+P0EbuuL7vBeXyDDW2ogrMj+w+wmawge',
    point: 'BC6DF7T8ndD5nLu4KbH8YWhE0W/sImSW2Ix0ExX86yXurAS6aJCE27X4/QRu64vu8F5fIMNbaiCsyP7D7CZrCB4=',
  },
  epoch7: {
    epoch: 7,
    keyHex: '442780f6fcf075825e6e86a03f49edfbceea67ad50210e6872ed6ba8de4dafd9',
    infoForBob: '["emp-messenger","epoch-key",1,"0190f3c2-0000-7000-8000-00000000c0c1",7,"0190f3c2-0000-7000-8000-000000000b0b",3]',
    infoForBobHex:
      '5b22656d702d6d657373656e676572222c2265706f63682d6b6579222c312c2230313930663363322d303030302d373030302d383030302d303030303030303063306331222c372c2230313930663363322d303030302d373030302d383030302d303030303030303030623062222c335d',
    wrappedForBob:
      'BC6DF7T8ndD5nLu4KbH8YWhE0W/sImSW2Ix0ExX86yXurAS6aJCE27X4/QRu64vu8F5fIMNbaiCsyP7D7CZrCB5tvhazj1fGxnwyzNO8YRa4qiOP6jigWJAfsDx8MYPcRIK8wsR7bHORwijUk9ZxcYw=',
    wrappedForAlice:
      'BC6DF7T8ndD5nLu4KbH8YWhE0W/sImSW2Ix0ExX86yXurAS6aJCE27X4/QRu64vu8F5fIMNbaiCsyP7D7CZrCB6xLRDAdWzfdkTdFL7HIp6y7WChrkm7Qyx7ZBgOzMugArV6JQTvQnIcdIMKeJqfNUY=',
  },
  hello: {
    conversationId: '0190f3c2-0000-7000-8000-00000000c0c1',
    epoch: 7,
    messageId: '0190f3c2-0000-7000-8000-0000000e55a1',
    senderId: '0190f3c2-0000-7000-8000-00000000a11c',
    senderKeyVersion: 2,
    text: 'Bonjour Bob, on se voit à 14 h ? 👋',
    iv: 'TFWnU/OoJAAbKfCy',
    ciphertext: 'MpFbwWxEcp4xmyUX1vpq6JJCVuHzvNtidtsrLt8BIYcdz6Z14PvYeceVI6DvKSzj05jle5fVn6y9qX++15P7vko=',
    aad: '["emp-messenger","message",1,"0190f3c2-0000-7000-8000-00000000c0c1",7,"0190f3c2-0000-7000-8000-0000000e55a1","0190f3c2-0000-7000-8000-00000000a11c",2]',
    signed:
      '["emp-messenger","message-signature",1,"0190f3c2-0000-7000-8000-00000000c0c1",7,"0190f3c2-0000-7000-8000-0000000e55a1","0190f3c2-0000-7000-8000-00000000a11c",2,"TFWnU/OoJAAbKfCy","MpFbwWxEcp4xmyUX1vpq6JJCVuHzvNtidtsrLt8BIYcdz6Z14PvYeceVI6DvKSzj05jle5fVn6y9qX++15P7vko="]',
    signature: 'DnC52gA1COYKO5tc9Fdz/GmGk1z30A1e15oPlv9jmGjB/XP3WwaLGSovmQVNHsGwrT9S8CMKoSfbMFoAWZ2Epw==',
  },
  reply: {
    conversationId: '0190f3c2-0000-7000-8000-00000000c0c1',
    epoch: 7,
    messageId: '0190f3c2-0000-7000-8000-0000000e55a2',
    senderId: '0190f3c2-0000-7000-8000-000000000b0b',
    senderKeyVersion: 3,
    text: 'Oui, à tout à l’heure.',
    iv: 'j28+b5xaLvguv0Pl',
    ciphertext: '5Lqo+JK7n8q3qA4/MVvx/yxy/RIN6ltxM7Ujb6wCMg7tJl5iq3eTl8UMZclRmMN4Nr7JELM=',
    aad: '["emp-messenger","message",1,"0190f3c2-0000-7000-8000-00000000c0c1",7,"0190f3c2-0000-7000-8000-0000000e55a2","0190f3c2-0000-7000-8000-000000000b0b",3]',
    signed:
      '["emp-messenger","message-signature",1,"0190f3c2-0000-7000-8000-00000000c0c1",7,"0190f3c2-0000-7000-8000-0000000e55a2","0190f3c2-0000-7000-8000-000000000b0b",3,"j28+b5xaLvguv0Pl","5Lqo+JK7n8q3qA4/MVvx/yxy/RIN6ltxM7Ujb6wCMg7tJl5iq3eTl8UMZclRmMN4Nr7JELM="]',
  },
  epoch8: {
    epoch: 8,
    keyHex: 'dea841b0e81e5a9a444037cdd4a434d36790d10cf02a67ad0688f877f33acbfd',
    wrappedForAlice:
      'BC6DF7T8ndD5nLu4KbH8YWhE0W/sImSW2Ix0ExX86yXurAS6aJCE27X4/QRu64vu8F5fIMNbaiCsyP7D7CZrCB6HRMGNDrOv2p9JpfIp3o+zjxIKypZtn53AX7Zgdu+j7baFdMwnWqRzb9+EDc0eN2Y=',
    wrappedForBob:
      'BC6DF7T8ndD5nLu4KbH8YWhE0W/sImSW2Ix0ExX86yXurAS6aJCE27X4/QRu64vu8F5fIMNbaiCsyP7D7CZrCB4yU0JeEcRUikVKy9L48hvNoj0h671HYNfzWfriqx/bj130HSe5CQApTcdKa9g0EKM=',
    message: {
      conversationId: '0190f3c2-0000-7000-8000-00000000c0c1',
      epoch: 8,
      messageId: '0190f3c2-0000-7000-8000-0000000e55a3',
      senderId: '0190f3c2-0000-7000-8000-000000000b0b',
      senderKeyVersion: 3,
      text: 'Nouvelle époque.',
      iv: 'BFBx1iDB2i/bDsop',
      ciphertext: '5bhWQL7nMLgkJoIEq1WAWXeqOwvL2GkM/leGmA4BggSZuh2MVR0vu1z8Ylg=',
      aad: '["emp-messenger","message",1,"0190f3c2-0000-7000-8000-00000000c0c1",8,"0190f3c2-0000-7000-8000-0000000e55a3","0190f3c2-0000-7000-8000-000000000b0b",3]',
      signed:
        '["emp-messenger","message-signature",1,"0190f3c2-0000-7000-8000-00000000c0c1",8,"0190f3c2-0000-7000-8000-0000000e55a3","0190f3c2-0000-7000-8000-000000000b0b",3,"BFBx1iDB2i/bDsop","5bhWQL7nMLgkJoIEq1WAWXeqOwvL2GkM/leGmA4BggSZuh2MVR0vu1z8Ylg="]',
    },
  },
  backup: {
    passphrase: 'Ｃorrect horse ﬁve étapes',
    normalizedPassphrase: 'Correct horse five étapes',
    saltHex: '3562624eefef8a7f25d2e997d0874df8',
    ivHex: 'b95294cf047f46b84c4e33df',
    contents: {
      userId: '0190f3c2-0000-7000-8000-000000000b0b',
      versions: [
        {
          version: 3,
          exported: {
            agreement:
              'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg9H4jjNT95TdFlOctHR1+jv40uRh3NYg9q6EjhrQVLFWhRANCAAQzmbXy0WFb6wtwHdZSSNvapcKpGB01H4U6/FPcNAlfRY4BowvKfrpmUkeceA9eN6N407CXrmpoyfQOaJG8Aw3j',
            signing:
              'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgmax2vIGUjZwrUhjfDZqdQbXqlSxN/9gpsQw1fSJX1eShRANCAATvoG65PzC8813wcHQv5Pd+8WV2X6IzojSjj7lNE6sfYzaYQdh7pqlHW1GE3bw1Yeaiov5q1A1Shrbj7/wLTzvu',
          },
          publicKeys: {
            agreementKey: 'BDOZtfLRYVvrC3Ad1lJI29qlwqkYHTUfhTr8U9w0CV9FjgGjC8p+umZSR5x4D143o3jTsJeuamjJ9A5okbwDDeM=',
            signingKey: 'BO+gbrk/MLzzXfBwdC/k937xZXZfojOiNKOPuU0Tqx9jNphB2HumqUdbUYTdvDVh5qKi/mrUDVKGtuPv/AtPO+4=',
          },
        },
      ],
    },
    aad: '["emp-messenger","key-backup",1,"0190f3c2-0000-7000-8000-000000000b0b"]',
    sealed: {
      salt: 'NWJiTu/vin8l0umX0IdN+A==',
      iterations: 600000,
      iv: 'uVKUzwR/RrhMTjPf',
      ciphertext:
        'GHz4PMZZ+8EK90Ndv/2aXXzy/hnp2ixqqjpaMceMht7QGtRfZOu2+G+hjdyTR8sTJPpoUjCT6kvUcYsIME9vBNePDjKr/0o5d/6m4kP/IWvEonikyybZS8aZEPrXOOSlUafv/6NWnuo38SBctkYkLuLXme4AcV1jG1OiW0PI3jSbSIRXxr5ySH1BXiQ4EtG7iscddotxLzX93kiAX3TrrmKb7A+Nm39sTmjJyGwUIHHi3NtWYljripXMr5MpIIOPRu8yc6RAKqtb2JxzpCzQvLp8JMdyctODM+H5Tag0LWKHEZuiwMoqVZXZPxgsUGUp6tTqbJMiRbRmLynSY2bo2/VRxsZMgGSN+ZLgk5+crcehu/bC+rkwvi9ddr88iP36cCDLecuQkKxp5nV/zsX/oE+I/Cs89BMudmjKED1Utw7HXV39N+hOxHWUlP1ibGL2FYClCYJBMKMogT5El0nrU8R3waS9t9YefmFRVjxMZv4MwySEQFDcaK1AJu9sb6hozqwhtqoWwfQxpDBgg5B7AA/aOd6ygNPs7laGLAeZFrNt0DT6lXLq4fCfcewKW8MjBxWkjB1XJ/lskZwu9fP9VwVdlSiiru+aXkycLBpYkqMv1DthHc4qFXIqNri3ODIeh0QbKRde5gmux12VOrsg3BsWj/JK6CtpopHaYg3qSirEmFcm8uBu5IMDh/KtJpWo1cJAZguYNPeHeGW/HnPfVVd+V7zi/at2EhN8Ppa1e4y2aDBOk0YGG0hioBSnP4nzdvCdm8Ib7PN3HkwZqIsYAC2sBn8jUKXcbDpKMwE0NSdqLJq6Yii4soy4ZglCY8PlFK56F0d/iEWj0+H1cSaUr7IiOWskMvjLi3ezYOqLVsgRKOcP4l0dPqs8Z5SF55nrS7QUaM1fk1YdPD8kaP0gOeBZ+LdhTYy2JwU+u/NRaWOZGCU0z98m53YXpSMiOqpvI/slTUmc',
    },
  },
  safetyNumber: '161837635043141874505743993257543676666898689493542068400240',
};
